// Kernels over planes of T (a prelude, float_f32.wgsl or float_f64.wgsl, defines it), one
// invocation per element they write: max pooling with its positions, its input gradient, and
// col2im (the input gradient of a convolution from its patch gradients). Each sums in a fixed
// order, so results are the same on every run.
//
// Windows and taps follow PyTorch's geometry: window (oy, ox) reads input rows
// oy * stride - padding + ky * dilation for ky < kernel, and likewise columns.

struct Params {
    // Planes (batch x channels), the input plane and the output (window) plane.
    planes: u32,
    h: u32,
    w: u32,
    oh: u32,
    ow: u32,
    kh: u32,
    kw: u32,
    sy: u32,
    sx: u32,
    py: u32,
    px: u32,
    dy: u32,
    dx: u32,
    // The elements the data of `src` and of `positions` start at.
    off: u32,
    off_at: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
// The input (max_pool2d), output gradient (max_pool2d_backward) or patch gradients (col2im).
@group(0) @binding(2) var<storage, read> src: array<T>;
// The positions of the maxima within their input planes, int64 as (lo, hi) words: written by
// max_pool2d, read by max_pool2d_backward (positions fit the low word).
@group(0) @binding(3) var<storage, read_write> positions: array<u32>;

fn image_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

// The input row (column) that tap k of window o reads along an axis, or -1 in the padding.
fn tap(o: u32, k: u32, stride: u32, padding: u32, dilation: u32, len: u32) -> i32 {
    let i = i32(o * stride + k * dilation) - i32(padding);
    return select(-1, i, i >= 0 && i < i32(len));
}

// The windows along an axis whose span holds input row (column) i: from the first whose last
// tap reaches it to the last whose first tap does, as [first, end).
fn windows_over(i: u32, kernel: u32, stride: u32, padding: u32, dilation: u32, count: u32) -> vec2<u32> {
    let at = i + padding;
    let reach = (kernel - 1u) * dilation;
    let first = select(0u, (at - reach + stride - 1u) / stride, at > reach);
    return vec2<u32>(first, min(count, at / stride + 1u));
}

// The maximum of each window and its position: NaN wins over any number, and otherwise the
// first maximum in window order, as on the CPU. Padding never wins: each window starts from its
// first tap inside the input (every window has one; the caller checks).
@compute @workgroup_size(256)
fn max_pool2d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = image_index(wid, nwg, lid);
    if i >= p.planes * p.oh * p.ow {
        return;
    }
    let ox = i % p.ow;
    let oy = (i / p.ow) % p.oh;
    let plane = p.off + (i / (p.ow * p.oh)) * p.h * p.w;
    var best = t_neg_inf();
    var at = 0xffffffffu;
    for (var ky = 0u; ky < p.kh; ky++) {
        let y = tap(oy, ky, p.sy, p.py, p.dy, p.h);
        if y < 0 {
            continue;
        }
        for (var kx = 0u; kx < p.kw; kx++) {
            let x = tap(ox, kx, p.sx, p.px, p.dx, p.w);
            if x < 0 {
                continue;
            }
            let pos = u32(y) * p.w + u32(x);
            let v = src[plane + pos];
            let wins = at == 0xffffffffu || ((v > best || t_is_nan(v)) && !t_is_nan(best));
            if wins {
                best = v;
                at = pos;
            }
        }
    }
    out[i] = best;
    positions[2u * (p.off_at + i)] = at;
    positions[2u * (p.off_at + i) + 1u] = 0u;
}

// The input gradient of max_pool2d: each input element sums the output gradients of the
// windows whose maximum it is, in window order (the order the CPU adds them in).
@compute @workgroup_size(256)
fn max_pool2d_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = image_index(wid, nwg, lid);
    if i >= p.planes * p.h * p.w {
        return;
    }
    let x = i % p.w;
    let y = (i / p.w) % p.h;
    let window0 = (i / (p.w * p.h)) * p.oh * p.ow;
    let pos = y * p.w + x;
    let rows = windows_over(y, p.kh, p.sy, p.py, p.dy, p.oh);
    let cols = windows_over(x, p.kw, p.sx, p.px, p.dx, p.ow);
    var sum = T(0.0);
    for (var oy = rows.x; oy < rows.y; oy++) {
        for (var ox = cols.x; ox < cols.y; ox++) {
            let window = window0 + oy * p.ow + ox;
            if positions[2u * (p.off_at + window)] == pos {
                sum += src[p.off + window];
            }
        }
    }
    out[i] = sum;
}

// The input gradient of a convolution: each image element (n, c, y, x) sums the patch
// gradients of the taps that read it, (N, C, kh, kw, oh, ow) contiguous, in tap order.
@compute @workgroup_size(256)
fn col2im(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = image_index(wid, nwg, lid);
    if i >= p.planes * p.h * p.w {
        return;
    }
    let x = i % p.w;
    let y = (i / p.w) % p.h;
    let taps0 = p.off + (i / (p.w * p.h)) * p.kh * p.kw * p.oh * p.ow;
    var sum = T(0.0);
    for (var ky = 0u; ky < p.kh; ky++) {
        // The window row whose tap ky reads row y, if one does.
        let ry = i32(y + p.py) - i32(ky * p.dy);
        if ry < 0 || u32(ry) % p.sy != 0u || u32(ry) / p.sy >= p.oh {
            continue;
        }
        let oy = u32(ry) / p.sy;
        for (var kx = 0u; kx < p.kw; kx++) {
            let rx = i32(x + p.px) - i32(kx * p.dx);
            if rx < 0 || u32(rx) % p.sx != 0u || u32(rx) / p.sx >= p.ow {
                continue;
            }
            let ox = u32(rx) / p.sx;
            sum += src[taps0 + ((ky * p.kw + kx) * p.oh + oy) * p.ow + ox];
        }
    }
    out[i] = sum;
}
