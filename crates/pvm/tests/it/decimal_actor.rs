//! `decimal`'s fixed context for actors (whitepaper: "If the decimal module is used, it MUST
//! use fixed rounding mode (ROUND_HALF_EVEN) and fixed precision"; issue 18 item 6, CIP-3).
//!
//! Under a chain host every context an actor can build or reach has prec 28 and
//! ROUND_HALF_EVEN: assigning another prec or rounding, `Context(...)`, `localcontext(**kw)`
//! and `setcontext` with other values raise ValueError, and BasicContext/ExtendedContext
//! refuse every use. Per-call `rounding=` arguments stay allowed, and the module's own
//! working precisions (`**`, exp/ln, next_*) keep working. The same statements in a plain
//! script (no host) behave as in CPython. LIMITATIONS.md 30 documents the rule.

use crate::common::*;

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvocationOutcome, InvokeError};
use cowboy_pvm::host::HostCosts;
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

/// What every refused change says (decimal.py's `_FIXED_ERROR`).
const FIXED: &str = "the decimal context is fixed on Cowboy: prec 28, ROUND_HALF_EVEN \
                     (per-call rounding= arguments are allowed)";

/// An actor whose handlers return lists of strings: results at the fixed context, and what
/// each attempt to change the context answered (`attempt` catches ValueError).
const ACTOR: &str = r#"
import decimal
from decimal import (Decimal, Context, DefaultContext, BasicContext, ExtendedContext,
                     getcontext, setcontext, localcontext, ROUND_DOWN, ROUND_HALF_UP,
                     ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN)


def attempt(f):
    try:
        f()
    except ValueError as e:
        return 'ValueError: ' + str(e)
    return 'allowed'


def set_in_localcontext():
    with localcontext() as c:
        c.prec = 12


def tampered():
    c = Context()
    object.__setattr__(c, 'prec', 9)
    setcontext(c)


class Actor:
    def arithmetic(self):
        c = getcontext()
        return [str(c.prec), c.rounding, str(Decimal(1) / Decimal(7)),
                str(Decimal(2) ** Decimal('0.5')), str(Decimal('1.1') ** 50),
                str(Decimal(2).sqrt()), str(Decimal(1).exp()), str(Decimal(10).ln()),
                str(Decimal(7).log10()), str(Decimal(1).next_plus()),
                str(Decimal(1).next_toward(0)), str(pow(Decimal(3), 100, 7)),
                str(Decimal('1e-2000000') * 1)]

    def per_call_rounding(self):
        x = Decimal('2.675')
        cent = Decimal('0.01')
        return [str(x.quantize(cent)), str(x.quantize(cent, rounding=ROUND_DOWN)),
                str(x.quantize(cent, rounding=ROUND_HALF_UP)),
                str(Decimal('-2.5').to_integral_value(rounding=ROUND_CEILING)),
                str(Decimal('2.5').to_integral_exact(rounding=ROUND_FLOOR)),
                str(round(Decimal('2.5'))), str(getcontext().quantize(x, cent))]

    def refused(self):
        return [
            attempt(lambda: setattr(getcontext(), 'prec', 50)),
            attempt(lambda: setattr(getcontext(), 'rounding', ROUND_DOWN)),
            attempt(lambda: setattr(DefaultContext, 'rounding', ROUND_DOWN)),
            attempt(lambda: Context(prec=10)),
            attempt(lambda: Context(rounding=ROUND_HALF_UP)),
            attempt(lambda: localcontext(prec=50)),
            attempt(lambda: localcontext(rounding=ROUND_FLOOR)),
            attempt(set_in_localcontext),
            attempt(tampered),
            attempt(lambda: setcontext(BasicContext)),
            attempt(lambda: setcontext(ExtendedContext)),
            attempt(lambda: localcontext(BasicContext)),
            attempt(lambda: Decimal(2).sqrt(context=ExtendedContext)),
            attempt(lambda: BasicContext.add(1, 2)),
            attempt(lambda: setattr(BasicContext, 'prec', 28)),
            repr(ExtendedContext),
            str(getcontext()),
        ]

    def allowed(self):
        def body():
            with localcontext(Emax=99, traps=[]) as c:
                c.prec = 28
                c.rounding = ROUND_HALF_EVEN
                return str(Decimal(10) ** 100)
        return [
            attempt(lambda: setattr(getcontext(), 'prec', 28)),
            attempt(lambda: setattr(getcontext(), 'rounding', ROUND_HALF_EVEN)),
            attempt(lambda: setcontext(Context(Emin=-99, Emax=99, traps=[]))),
            str(getcontext()),
            body(),
            str(Context(prec=28, rounding=ROUND_HALF_EVEN, capitals=0).copy()),
            str(hasattr(decimal, 'pvm_host')),
        ]
"#;

fn run(source: &str, entry: Entry) -> InvocationOutcome {
    let inv = Invocation {
        source,
        code_hash: None,
        filename: "dec.py",
        entry,
        limits: Limits {
            cycles: Some(50_000_000),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    };
    invoke(inv, &mut MemHost::new(u64::MAX))
}

/// Call `handler` of [`ACTOR`]; its list of strings.
fn call(handler: &str) -> Vec<String> {
    let o = run(
        ACTOR,
        Entry::Call {
            handler: handler.into(),
            args: Value::Array(vec![]),
        },
    );
    let bytes = o
        .result
        .unwrap_or_else(|e| panic!("{handler}: {e:?}\n{}", o.stdout));
    match cowboy_types::cbor::decode(&bytes) {
        Ok(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::Text(t) => t,
                other => panic!("{handler}: {other:?}"),
            })
            .collect(),
        other => panic!("{handler}: {other:?}"),
    }
}

/// CPython 3.11's results at its default context (prec 28, ROUND_HALF_EVEN), including the
/// paths that work internally at other precisions or roundings: `**` with a non-integral
/// exponent (exp(y*ln x) at prec + 23), integral powers (binary powering at prec + digits),
/// exp/ln/log10, next_plus/next_toward (directed rounding), three-argument pow, subnormals.
#[test]
fn arithmetic_runs_at_prec_28_half_even() {
    assert_eq!(
        call("arithmetic"),
        [
            "28",
            "ROUND_HALF_EVEN",
            "0.1428571428571428571428571429",
            "1.414213562373095048801688724",
            "117.3908528796953165066664960",
            "1.414213562373095048801688724",
            "2.718281828459045235360287471",
            "2.302585092994045684017991455",
            "0.8450980400142568307122162586",
            "1.000000000000000000000000001",
            "0.9999999999999999999999999999",
            "4",
            "0E-1000026",
        ]
    );
}

/// `rounding=` on one call is deterministic and common in financial code: allowed.
#[test]
fn per_call_rounding_is_allowed() {
    assert_eq!(
        call("per_call_rounding"),
        ["2.68", "2.67", "2.68", "-2", "2", "2", "2.68"]
    );
}

#[test]
fn every_way_to_change_prec_or_rounding_is_refused() {
    let fixed = format!("ValueError: {FIXED}");
    let unavailable = |name: &str| format!("ValueError: decimal.{name} is not available: {FIXED}");
    let mut want = vec![fixed; 9];
    for name in [
        "BasicContext",
        "ExtendedContext",
        "BasicContext",
        "ExtendedContext",
        "BasicContext",
        "BasicContext",
    ] {
        want.push(unavailable(name));
    }
    want.push("<decimal.ExtendedContext: not available to actors>".into());
    // Nothing was changed by the refused attempts.
    want.push(
        "Context(prec=28, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, \
         clamp=0, flags=[], traps=[InvalidOperation, DivisionByZero, Overflow])"
            .into(),
    );
    assert_eq!(call("refused"), want);
}

/// The fixed values themselves, and every other field (Emin, Emax, capitals, clamp, traps),
/// stay settable; decimal keeps no reference to `pvm_host`.
#[test]
fn the_fixed_values_and_other_fields_are_allowed() {
    assert_eq!(
        call("allowed"),
        [
            "allowed",
            "allowed",
            "allowed",
            "Context(prec=28, rounding=ROUND_HALF_EVEN, Emin=-99, Emax=99, capitals=1, \
             clamp=0, flags=[], traps=[])",
            "Infinity",
            "Context(prec=28, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999, \
             capitals=0, clamp=0, flags=[], traps=[InvalidOperation, DivisionByZero, Overflow])",
            "False",
        ]
    );
}

/// Uncaught, the refusal is the invocation's error, at the line that tried.
#[test]
fn an_uncaught_refusal_fails_the_invocation() {
    let src = "import decimal\n\
               decimal.getcontext().prec = 8\n\
               class Actor:\n    def f(self):\n        return 1\n";
    let o = run(
        src,
        Entry::Deploy {
            args: Value::Array(vec![]),
        },
    );
    match o.result {
        Err(InvokeError::Python {
            class,
            message,
            line,
            ..
        }) => {
            assert_eq!(class, "ValueError");
            assert_eq!(message, FIXED);
            assert_eq!(line, Some(2));
        }
        other => panic!("{other:?}"),
    }
}

/// Without a host (`cowboy pvm run`, the conformance programs) decimal is CPython's.
#[test]
fn plain_scripts_keep_cpythons_contexts() {
    let o = run_with(
        "from decimal import *\n\
         getcontext().prec = 50\n\
         print(Decimal(1) / Decimal(7))\n\
         with localcontext(BasicContext) as c:\n    print(c.prec, c.rounding, Decimal(2).sqrt())\n\
         getcontext().rounding = ROUND_DOWN\n\
         print(Decimal(2) / 3)\n",
        Limits::default(),
    );
    assert!(o.error.is_none(), "{:?}", o.error);
    // python3 prints the same.
    assert_eq!(
        o.stdout,
        "0.14285714285714285714285714285714285714285714285714\n\
         9 ROUND_HALF_UP 1.41421356\n\
         0.66666666666666666666666666666666666666666666666666\n"
    );
}
