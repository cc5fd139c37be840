// nll_loss of rows of T scores (a prelude, float_f32.wgsl or float_f64.wgsl, defines it; then
// workgroup_sum.wgsl) in one workgroup: per row its target's score times the target's weight,
// the sums in a fixed order (each thread its rows in turn, then the halving tree), and what the
// backward needs per row. A target out of range (and not ignored) sets the flag word that
// follows the picks; the caller reads it and raises the CPU's error.

const HAS_WEIGHT: u32 = 1u;
const MEAN: u32 = 2u;
// Reduction 'none': a loss per row instead of their sum.
const PER_ROW: u32 = 4u;

struct Params {
    n: u32,
    classes: u32,
    flags: u32,
    // Elements the scores, targets (int64) and weights start at.
    off_s: u32,
    off_t: u32,
    off_w: u32,
    // ignore_index as int64 (lo, hi) words.
    ignore: vec2<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;
// The loss (one, or one per row).
@group(0) @binding(1) var<storage, read_write> out: array<T>;
// Per row d loss / d score at the target, before the incoming gradient (0 where ignored).
@group(0) @binding(2) var<storage, read_write> slopes: array<T>;
// Per row the target's class as int64 words (0 where ignored), then the flag word.
@group(0) @binding(3) var<storage, read_write> picks: array<u32>;
@group(0) @binding(4) var<storage, read> scores: array<T>;
@group(0) @binding(5) var<storage, read> targets: array<u32>;
@group(0) @binding(6) var<storage, read> weights: array<T>;

fn target_of(r: u32) -> vec2<u32> {
    return vec2<u32>(targets[2u * (p.off_t + r)], targets[2u * (p.off_t + r) + 1u]);
}

fn is_ignored(t: vec2<u32>) -> bool {
    return all(t == p.ignore);
}

@compute @workgroup_size(256)
fn nll_loss(@builtin(local_invocation_index) lid: u32) {
    var loss_sum = T(0.0);
    var weight_sum = T(0.0);
    for (var r = lid; r < p.n; r += 256u) {
        let t = target_of(r);
        let ignored = is_ignored(t);
        let in_range = t.y == 0u && t.x < p.classes;
        if !ignored && !in_range {
            picks[2u * p.n] = 1u;
        }
        let counted = !ignored && in_range;
        let pick = select(0u, t.x, counted);
        var coef = T(0.0);
        var loss = T(0.0);
        if counted {
            coef = select(T(1.0), weights[p.off_w + pick], (p.flags & HAS_WEIGHT) != 0u);
            loss = -coef * scores[p.off_s + r * p.classes + pick];
        }
        picks[2u * r] = pick;
        picks[2u * r + 1u] = 0u;
        slopes[r] = select(T(0.0), -coef, counted);
        if (p.flags & PER_ROW) != 0u {
            out[r] = loss;
        }
        loss_sum += loss;
        weight_sum += coef;
    }
    if (p.flags & PER_ROW) != 0u {
        return;
    }
    let total_loss = workgroup_sum(loss_sum, lid);
    let total_weight = workgroup_sum(weight_sum, lid);
    if (p.flags & MEAN) == 0u {
        if lid == 0u {
            out[0] = total_loss;
        }
        return;
    }
    // A mean over no weight is NaN, as in PyTorch; so are the slopes of the rows it counts.
    if lid == 0u {
        out[0] = select(total_loss / total_weight, t_nan(), total_weight == T(0.0));
    }
    for (var r = lid; r < p.n; r += 256u) {
        let t = target_of(r);
        if !is_ignored(t) {
            slopes[r] = select(slopes[r] / total_weight, t_nan(), total_weight == T(0.0));
        }
    }
}
