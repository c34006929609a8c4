//! A real inference engine on a tiny model the tests make themselves: a llama-shaped
//! decoder-only transformer (token embeddings, pre-norm blocks of rotary causal self-attention
//! and a SwiGLU MLP, RMS norms, an output head) over a vocabulary of the 256 byte values, so
//! no tokenizer is needed. Its weights are drawn from a fixed seed, written to disk as
//! safetensors, and loaded back by candle, which runs every tensor operation. Greedy decoding
//! recomputes the whole sequence per token (no KV cache: the model is tiny), and an embedding
//! is the mean of the final hidden states over the input's tokens.

use std::path::Path;

use candle_core::{DType, Device, IndexOp, Module, Result, Tensor, D};
use candle_nn::{Embedding, Linear, RmsNorm};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Byte-level vocabulary.
pub const VOCAB: usize = 256;
/// Token 0 (the NUL byte) ends an answer.
pub const EOS: u32 = 0;
/// Longest sequence, prompt and completion.
pub const CONTEXT: usize = 1_024;
const HIDDEN: usize = 32;
const HEADS: usize = 4;
const HEAD_DIM: usize = HIDDEN / HEADS;
const LAYERS: usize = 2;
const FFN: usize = 64;
const EPS: f64 = 1e-5;

/// The architecture description the model hash covers (`config.json`).
pub const ARCH: &str = r#"{"architecture":"tiny-llama","vocab_size":256,"hidden_size":32,"num_attention_heads":4,"num_hidden_layers":2,"intermediate_size":64,"max_position_embeddings":1024,"rms_norm_eps":1e-5,"rope_theta":10000}"#;
/// The tokenizer description the model hash covers: one token per byte.
pub const TOKENIZER: &str = r#"{"type":"bytes","vocab_size":256,"eos":0}"#;
/// The license text the model hash covers.
pub const LICENSE: &str = "Test weights drawn from a fixed seed; no rights reserved.\n";

/// A uniform tensor in `[-scale, scale)` drawn from `rng`.
fn uniform(rng: &mut StdRng, shape: (usize, usize), scale: f32) -> Result<Tensor> {
    let data: Vec<f32> = (0..shape.0 * shape.1)
        .map(|_| rng.random_range(-scale..scale))
        .collect();
    Tensor::from_vec(data, shape, &Device::Cpu)
}

/// The tensor names and shapes of the model, in a fixed order.
fn shapes() -> Vec<(String, (usize, usize))> {
    let mut v = vec![("embed.weight".to_string(), (VOCAB, HIDDEN))];
    for l in 0..LAYERS {
        for (name, shape) in [
            ("attn_norm", (1, HIDDEN)),
            ("q", (HIDDEN, HIDDEN)),
            ("k", (HIDDEN, HIDDEN)),
            ("v", (HIDDEN, HIDDEN)),
            ("o", (HIDDEN, HIDDEN)),
            ("mlp_norm", (1, HIDDEN)),
            ("gate", (FFN, HIDDEN)),
            ("up", (FFN, HIDDEN)),
            ("down", (HIDDEN, FFN)),
        ] {
            v.push((format!("layers.{l}.{name}.weight"), shape));
        }
    }
    v.push(("norm.weight".to_string(), (1, HIDDEN)));
    v.push(("head.weight".to_string(), (VOCAB, HIDDEN)));
    v
}

/// Write the weights drawn from `seed` to `path` as safetensors.
pub fn write_weights(path: &Path, seed: u64) -> Result<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let tensors = shapes()
        .into_iter()
        .map(|(name, shape)| {
            // Norm gains start at one; matrices at the usual 1/sqrt(fan_in) scale.
            let t = if name.contains("norm") {
                Tensor::ones(shape, DType::F32, &Device::Cpu)?
            } else {
                uniform(&mut rng, shape, 1.0 / (shape.1 as f32).sqrt())?
            };
            Ok((name, t))
        })
        .collect::<Result<_>>()?;
    candle_core::safetensors::save(&tensors, path)
}

struct Block {
    attn_norm: RmsNorm,
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    mlp_norm: RmsNorm,
    gate: Linear,
    up: Linear,
    down: Linear,
}

/// The model, loaded.
pub struct TinyLm {
    embed: Embedding,
    blocks: Vec<Block>,
    norm: RmsNorm,
    head: Linear,
    cos: Tensor,
    sin: Tensor,
}

impl TinyLm {
    /// Load the weights written by [`write_weights`].
    pub fn load(path: &Path) -> Result<TinyLm> {
        let mut w = candle_core::safetensors::load(path, &Device::Cpu)?;
        let mut take = |name: &str| {
            w.remove(name)
                .ok_or_else(|| candle_core::Error::Msg(format!("missing tensor {name}")))
        };
        let norm = |t: Tensor| -> Result<RmsNorm> { Ok(RmsNorm::new(t.flatten_all()?, EPS)) };
        let embed = Embedding::new(take("embed.weight")?, HIDDEN);
        let mut blocks = Vec::with_capacity(LAYERS);
        for l in 0..LAYERS {
            let mut lin = |n: &str| {
                Ok::<_, candle_core::Error>(Linear::new(
                    take(&format!("layers.{l}.{n}.weight"))?,
                    None,
                ))
            };
            blocks.push(Block {
                q: lin("q")?,
                k: lin("k")?,
                v: lin("v")?,
                o: lin("o")?,
                gate: lin("gate")?,
                up: lin("up")?,
                down: lin("down")?,
                attn_norm: norm(take(&format!("layers.{l}.attn_norm.weight"))?)?,
                mlp_norm: norm(take(&format!("layers.{l}.mlp_norm.weight"))?)?,
            });
        }
        let norm_w = norm(take("norm.weight")?)?;
        let head = Linear::new(take("head.weight")?, None);
        // Rotary angles: position p, pair i turns by p / 10000^(2i / HEAD_DIM).
        let half = HEAD_DIM / 2;
        let angles: Vec<f32> = (0..CONTEXT)
            .flat_map(|p| {
                (0..half).map(move |i| p as f32 / 10_000f32.powf(2.0 * i as f32 / HEAD_DIM as f32))
            })
            .collect();
        let angles = Tensor::from_vec(angles, (CONTEXT, half), &Device::Cpu)?;
        Ok(TinyLm {
            embed,
            blocks,
            norm: norm_w,
            head,
            cos: angles.cos()?,
            sin: angles.sin()?,
        })
    }

    /// The final hidden states `[T, HIDDEN]` of `tokens` (1 ≤ T ≤ [`CONTEXT`]).
    fn hidden(&self, tokens: &[u32]) -> Result<Tensor> {
        let t = tokens.len();
        let mut x = self.embed.forward(&Tensor::new(tokens, &Device::Cpu)?)?;
        let (cos, sin) = (self.cos.narrow(0, 0, t)?, self.sin.narrow(0, 0, t)?);
        let mask: Vec<f32> = (0..t * t)
            .map(|i| {
                if i % t > i / t {
                    f32::NEG_INFINITY
                } else {
                    0.0
                }
            })
            .collect();
        let mask = Tensor::from_vec(mask, (t, t), &Device::Cpu)?;
        let heads = |y: Tensor| -> Result<Tensor> {
            y.reshape((1, t, HEADS, HEAD_DIM))?
                .transpose(1, 2)?
                .contiguous()
        };
        for b in &self.blocks {
            let h = b.attn_norm.forward(&x)?;
            let q = candle_nn::rotary_emb::rope(&heads(b.q.forward(&h)?)?, &cos, &sin)?;
            let k = candle_nn::rotary_emb::rope(&heads(b.k.forward(&h)?)?, &cos, &sin)?;
            let v = heads(b.v.forward(&h)?)?;
            let scores = (q.matmul(&k.t()?)? / (HEAD_DIM as f64).sqrt())?.broadcast_add(&mask)?;
            let att = candle_nn::ops::softmax_last_dim(&scores)?.matmul(&v)?;
            let att = att.transpose(1, 2)?.reshape((t, HIDDEN))?;
            x = (x + b.o.forward(&att)?)?;
            let h = b.mlp_norm.forward(&x)?;
            let mlp = (candle_nn::ops::silu(&b.gate.forward(&h)?)? * b.up.forward(&h)?)?;
            x = (x + b.down.forward(&mlp)?)?;
        }
        self.norm.forward(&x)
    }

    /// Greedy decoding: up to `max_new` tokens after `prompt`, stopping after [`EOS`].
    pub fn generate(&self, prompt: &[u32], max_new: usize) -> Result<Vec<u32>> {
        let mut seq = prompt.to_vec();
        for _ in 0..max_new {
            let hidden = self.hidden(&seq)?;
            let last = hidden.i(seq.len() - 1)?.unsqueeze(0)?;
            let next = self
                .head
                .forward(&last)?
                .squeeze(0)?
                .argmax(D::Minus1)?
                .to_scalar::<u32>()?;
            seq.push(next);
            if next == EOS {
                break;
            }
        }
        Ok(seq.split_off(prompt.len()))
    }

    /// The mean of the final hidden states over `tokens`.
    pub fn embed(&self, tokens: &[u32]) -> Result<Vec<f32>> {
        self.hidden(tokens)?.mean(0)?.to_vec1()
    }
}
