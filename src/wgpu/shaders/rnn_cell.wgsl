// The pointwise LSTM and GRU cells of one time step, forward and backward (T and its t_sigmoid,
// t_tanh from the prelude, float_f32.wgsl or float_f64.wgsl): one thread per (row, unit), the
// formulas, gate order and saved layout of the CPU's kernels (cpu::rnn_cell), so that the
// backward of either reads what the forward of either kept. Gate g of row r and unit j is
// element (r * gates + g) * hidden + j of a (rows, gates * hidden) block; state and outputs are
// (rows, hidden). Every operand is contiguous from its element offset (off0..off3 for the
// read bindings in0..in3); the written ones from 0.
//
// lstm_forward:  out0 = h', out1 = c', out2 = saved (i, f, g, o, tanh c') | in0 = gx, in1 = gh, in2 = c
// lstm_backward: out0 = d gates, out1 = d c                 | in0 = saved, in1 = c, in2 = dh, in3 = dc
// gru_forward:   out0 = h', out1 = saved (r, z, n, gh_n)    | in0 = gx, in1 = gh, in2 = h
// gru_backward:  out0 = d gx, out1 = d gh, out2 = d h       | in0 = saved, in1 = h, in2 = dy
// Bindings an entry does not name are bound to stand-ins by the launcher.

// flags: the forward keeps its activations for the backward.
const KEEP: u32 = 1u;

struct Params {
    // rows * hidden: one thread each.
    n: u32,
    hidden: u32,
    flags: u32,
    off0: u32,
    off1: u32,
    off2: u32,
    off3: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out0: array<T>;
@group(0) @binding(2) var<storage, read_write> out1: array<T>;
@group(0) @binding(3) var<storage, read_write> out2: array<T>;
@group(0) @binding(4) var<storage, read> in0: array<T>;
@group(0) @binding(5) var<storage, read> in1: array<T>;
@group(0) @binding(6) var<storage, read> in2: array<T>;
@group(0) @binding(7) var<storage, read> in3: array<T>;

// The thread's element of the (rows, hidden) state; grids past 65535 groups wrap into y.
fn cell_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

@compute @workgroup_size(256)
fn lstm_forward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let e = cell_index(wid, nwg, lid);
    if e >= p.n { return; }
    let h = p.hidden;
    let j = e % h;
    let r = e / h;
    let g = r * 4u * h + j;
    let gi = t_sigmoid(in0[p.off0 + g] + in1[p.off1 + g]);
    let gf = t_sigmoid(in0[p.off0 + g + h] + in1[p.off1 + g + h]);
    let gg = t_tanh(in0[p.off0 + g + 2u * h] + in1[p.off1 + g + 2u * h]);
    let go = t_sigmoid(in0[p.off0 + g + 3u * h] + in1[p.off1 + g + 3u * h]);
    let cn = gf * in2[p.off2 + e] + gi * gg;
    let tc = t_tanh(cn);
    out0[e] = go * tc;
    out1[e] = cn;
    if (p.flags & KEEP) != 0u {
        let s = r * 5u * h + j;
        out2[s] = gi;
        out2[s + h] = gf;
        out2[s + 2u * h] = gg;
        out2[s + 3u * h] = go;
        out2[s + 4u * h] = tc;
    }
}

@compute @workgroup_size(256)
fn lstm_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let e = cell_index(wid, nwg, lid);
    if e >= p.n { return; }
    let h = p.hidden;
    let j = e % h;
    let r = e / h;
    let s = p.off0 + r * 5u * h + j;
    let gi = in0[s];
    let gf = in0[s + h];
    let gg = in0[s + 2u * h];
    let go = in0[s + 3u * h];
    let tc = in0[s + 4u * h];
    let one = T(1.0);
    let dh = in2[p.off2 + e];
    let dct = in3[p.off3 + e] + dh * go * (one - tc * tc);
    let d = r * 4u * h + j;
    out0[d] = dct * gg * gi * (one - gi);
    out0[d + h] = dct * in1[p.off1 + e] * gf * (one - gf);
    out0[d + 2u * h] = dct * gi * (one - gg * gg);
    out0[d + 3u * h] = dh * tc * go * (one - go);
    out1[e] = dct * gf;
}

@compute @workgroup_size(256)
fn gru_forward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let e = cell_index(wid, nwg, lid);
    if e >= p.n { return; }
    let h = p.hidden;
    let j = e % h;
    let r = e / h;
    let g = r * 3u * h + j;
    let rg = t_sigmoid(in0[p.off0 + g] + in1[p.off1 + g]);
    let z = t_sigmoid(in0[p.off0 + g + h] + in1[p.off1 + g + h]);
    let hn = in1[p.off1 + g + 2u * h];
    let n = t_tanh(in0[p.off0 + g + 2u * h] + rg * hn);
    out0[e] = n + z * (in2[p.off2 + e] - n);
    if (p.flags & KEEP) != 0u {
        let s = r * 4u * h + j;
        out1[s] = rg;
        out1[s + h] = z;
        out1[s + 2u * h] = n;
        out1[s + 3u * h] = hn;
    }
}

@compute @workgroup_size(256)
fn gru_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let e = cell_index(wid, nwg, lid);
    if e >= p.n { return; }
    let h = p.hidden;
    let j = e % h;
    let r = e / h;
    let s = p.off0 + r * 4u * h + j;
    let rg = in0[s];
    let z = in0[s + h];
    let n = in0[s + 2u * h];
    let hn = in0[s + 3u * h];
    let one = T(1.0);
    let dy = in2[p.off2 + e];
    let dn = dy * (one - z) * (one - n * n);
    let dr = dn * hn * rg * (one - rg);
    let dz = dy * (in1[p.off1 + e] - n) * z * (one - z);
    let d = r * 3u * h + j;
    out0[d] = dr;
    out0[d + h] = dz;
    out0[d + 2u * h] = dn;
    out1[d] = dr;
    out1[d + h] = dz;
    out1[d + 2u * h] = dn * rg;
    out2[e] = dy * z;
}
