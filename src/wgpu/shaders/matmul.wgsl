// Batched matrix product C[b] = A[b] @ B[b] (+ D[b] where a bias D is bound) over strided
// (transposed, broadcast) operands into a contiguous C of the compute type T. The launcher
// prepends T's alias and the bindings of A, B and D with their readers a_at / b_at / d_at
// (float32 and float64 read their own type; float16 and bfloat16, stored two to a word, are
// widened to float32 as they are read). matmul_wide.wgsl may follow.
//
// `matmul`: each workgroup of 16x16 threads computes a 64x64 tile of C; each thread a 4x4 block of
// it, from 16-deep slices of A and B staged in workgroup memory, so every element loaded from
// global memory is used 64 times.

struct Params {
    m: u32,
    n: u32,
    k: u32,
    // The first batch of this dispatch (batches beyond 65535 take several dispatches).
    batch_base: u32,
    off_a: u32,
    off_b: u32,
    // Strides in elements: per batch, per row and per column of A and B.
    a_bs: u32,
    b_bs: u32,
    a_rs: u32,
    a_cs: u32,
    b_rs: u32,
    b_cs: u32,
    // Whether D is added, where it starts and its strides (0 along broadcast dims).
    has_d: u32,
    off_d: u32,
    d_bs: u32,
    d_rs: u32,
    d_cs: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> c: array<T>;

// Element (r, col) of C[batch] from its sum of products: D's element added once, in T.
fn finish(batch: u32, r: u32, col: u32, v: T) -> T {
    if p.has_d == 0u {
        return v;
    }
    return v + d_at(p.off_d + batch * p.d_bs + r * p.d_rs + col * p.d_cs);
}

const TILE: u32 = 64u;
const DEPTH: u32 = 16u;

// A's slice stored k-major ([DEPTH][TILE / 4] vec4s of four rows) and B's likewise (four
// columns): a thread reads its four rows or columns with one vector load.
var<workgroup> a_tile: array<vec4<T>, 256>;
var<workgroup> b_tile: array<vec4<T>, 256>;

@compute @workgroup_size(16, 16)
fn matmul(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let batch = p.batch_base + wid.z;
    let row0 = wid.y * TILE;
    let col0 = wid.x * TILE;
    let a_base = p.off_a + batch * p.a_bs;
    let b_base = p.off_b + batch * p.b_bs;
    var acc: array<vec4<T>, 4>;
    for (var k0 = 0u; k0 < p.k; k0 += DEPTH) {
        // Stage A[row0.., k0..] and B[k0.., col0..]: 1024 values each, four per thread, with
        // zeros past the edges.
        for (var i = 0u; i < 4u; i++) {
            let e = lid + i * 256u;
            // A: consecutive threads walk k (contiguous when A is row-major).
            let ar = e / DEPTH;
            let ak = e % DEPTH;
            var av: T = 0.0;
            if row0 + ar < p.m && k0 + ak < p.k {
                av = a_at(a_base + (row0 + ar) * p.a_rs + (k0 + ak) * p.a_cs);
            }
            a_tile[ak * 16u + ar / 4u][ar % 4u] = av;
            // B: consecutive threads walk columns (contiguous when B is row-major).
            let bk = e / TILE;
            let bc = e % TILE;
            var bv: T = 0.0;
            if k0 + bk < p.k && col0 + bc < p.n {
                bv = b_at(b_base + (k0 + bk) * p.b_rs + (col0 + bc) * p.b_cs);
            }
            b_tile[bk * 16u + bc / 4u][bc % 4u] = bv;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < DEPTH; kk++) {
            let av = a_tile[kk * 16u + lid3.y];
            let bv = b_tile[kk * 16u + lid3.x];
            acc[0] = fma(vec4<T>(av.x), bv, acc[0]);
            acc[1] = fma(vec4<T>(av.y), bv, acc[1]);
            acc[2] = fma(vec4<T>(av.z), bv, acc[2]);
            acc[3] = fma(vec4<T>(av.w), bv, acc[3]);
        }
        workgroupBarrier();
    }
    let out_base = batch * p.m * p.n;
    for (var i = 0u; i < 4u; i++) {
        let r = row0 + lid3.y * 4u + i;
        if r >= p.m { break; }
        for (var j = 0u; j < 4u; j++) {
            let col = col0 + lid3.x * 4u + j;
            if col < p.n {
                c[out_base + r * p.n + col] = finish(batch, r, col, acc[i][j]);
            }
        }
    }
}
