# Regression cases found by the adversarial search (`search.rs`; PVM README, "Adversarial
# search"), in the format of `cases.py`: each header names the finding and the ratio it had when
# found, before the fix that brought it down. `calibrate` measures them with the other cases.
