//! Checks each wgpu launcher's `Params` struct (Rust, `#[repr(C)]`, uploaded as bytes) against
//! the `Params` struct of the shader it launches: a field added, dropped, reordered or padded on
//! one side only would make the kernel read the wrong words, silently. Both sides are read from
//! the source text, so this runs without a GPU and without the `wgpu` feature.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

/// A field's name, byte offset and size in its struct.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    offset: usize,
    size: usize,
}

/// The body of `struct Params { ... }` in `source`, one field declaration per entry.
fn params_body(source: &str) -> Option<Vec<(String, String)>> {
    let start = source.find("\nstruct Params {").or_else(|| source.find("\npub struct Params {"))?;
    let body = &source[start..];
    let body = &body[body.find('{')? + 1..body.find("\n}")?];
    let mut fields = Vec::new();
    for line in body.lines() {
        let line = line.split("//").next().unwrap_or("").trim().trim_end_matches(',');
        if line.is_empty() {
            continue;
        }
        let (name, ty) = line.split_once(':').unwrap_or_else(|| panic!("unparsed field {line:?}"));
        let name = name.trim().trim_start_matches("pub(crate) ").trim_start_matches("pub ").trim();
        fields.push((name.to_string(), ty.trim().to_string()));
    }
    Some(fields)
}

/// Size and alignment of a Rust field type as `#[repr(C)]` lays it out.
fn rust_type(ty: &str, aliases: &HashMap<&str, &str>) -> (usize, usize) {
    let ty = ty.trim();
    if let Some(alias) = aliases.get(ty) {
        return rust_type(alias, aliases);
    }
    match ty {
        "u32" | "i32" | "f32" => (4, 4),
        "u64" | "i64" | "f64" => (8, 8),
        _ => {
            let inner = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or_else(|| panic!("unknown Rust type {ty}"));
            let (elem, n) = inner.rsplit_once(';').expect("an array type");
            let (size, align) = rust_type(elem, aliases);
            (size * n.trim().parse::<usize>().expect("an array length"), align)
        }
    }
}

/// Size and alignment of a WGSL type in the uniform address space.
fn wgsl_type(ty: &str) -> (usize, usize) {
    let ty = ty.trim();
    match ty {
        "u32" | "i32" | "f32" => (4, 4),
        _ => {
            if let Some(elem) = ty.strip_prefix("vec2<").and_then(|t| t.strip_suffix('>')) {
                let (s, _) = wgsl_type(elem);
                return (2 * s, 2 * s);
            }
            if let Some(elem) = ty.strip_prefix("vec3<").and_then(|t| t.strip_suffix('>')) {
                let (s, _) = wgsl_type(elem);
                return (3 * s, 4 * s);
            }
            if let Some(elem) = ty.strip_prefix("vec4<").and_then(|t| t.strip_suffix('>')) {
                let (s, _) = wgsl_type(elem);
                return (4 * s, 4 * s);
            }
            let inner = ty.strip_prefix("array<").and_then(|t| t.strip_suffix('>')).unwrap_or_else(|| panic!("unknown WGSL type {ty}"));
            let (elem, n) = inner.rsplit_once(',').expect("a sized array");
            let (size, align) = wgsl_type(elem);
            let stride = size.div_ceil(align) * align;
            (stride * n.trim().parse::<usize>().expect("an array length"), align)
        }
    }
}

/// Lays out `fields` with `layout` (size, alignment of a type): offsets and the struct's size.
fn lay_out(fields: &[(String, String)], layout: impl Fn(&str) -> (usize, usize)) -> (Vec<Field>, usize) {
    let (mut at, mut struct_align, mut out) = (0usize, 1usize, Vec::new());
    for (name, ty) in fields {
        let (size, align) = layout(ty);
        at = at.div_ceil(align) * align;
        out.push(Field { name: name.clone(), offset: at, size });
        at += size;
        struct_align = struct_align.max(align);
    }
    (out, at.div_ceil(struct_align) * struct_align)
}

fn is_padding(name: &str) -> bool {
    name.trim_start_matches('_').starts_with("pad")
}

/// Rust fields must cover the shader's fields exactly: each one starts and ends on shader field
/// boundaries, and where it stands for exactly one shader field the names agree.
fn compare(launcher: &str, rust: &[Field], rust_size: usize, wgsl: &[Field], wgsl_size: usize) -> Vec<String> {
    let mut problems = Vec::new();
    if rust_size != wgsl_size {
        problems.push(format!("{launcher}: Params is {rust_size} bytes in Rust, {wgsl_size} in WGSL"));
    }
    for f in rust {
        let end = f.offset + f.size;
        let first = wgsl.iter().position(|w| w.offset == f.offset);
        let last = wgsl.iter().position(|w| w.offset + w.size == end);
        match (first, last) {
            (Some(a), Some(b)) if a <= b => {
                let covered = &wgsl[a..=b];
                if covered.len() == 1 && !is_padding(&f.name) && covered[0].name != f.name {
                    problems.push(format!("{launcher}: Rust field {} sits where the shader reads {}", f.name, covered[0].name));
                }
                if covered.len() > 1 && covered.iter().any(|w| is_padding(&w.name)) != is_padding(&f.name) && !is_padding(&f.name) {
                    problems.push(format!("{launcher}: Rust field {} spans shader padding", f.name));
                }
            }
            _ => problems.push(format!(
                "{launcher}: Rust field {} (bytes {}..{end}) does not fall on the shader's field boundaries",
                f.name, f.offset
            )),
        }
    }
    problems
}

#[test]
fn launcher_params_match_their_shaders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/wgpu");
    let strided = fs::read_to_string(root.join("strided.rs")).expect("src/wgpu/strided.rs");
    let packed = strided
        .lines()
        .find_map(|l| l.trim().strip_prefix("pub(crate) type Packed = ").map(|t| t.trim_end_matches(';').to_string()))
        .expect("the Packed alias");
    let aliases: HashMap<&str, &str> = [("Packed", packed.as_str())].into();

    let (mut checked, mut problems) = (Vec::new(), Vec::new());
    let mut entries: Vec<_> = fs::read_dir(&root).expect("src/wgpu").map(|e| e.expect("a directory entry").path()).collect();
    entries.sort();
    for path in entries.into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let source = fs::read_to_string(&path).expect("a launcher");
        let Some(rust_fields) = params_body(&source) else { continue };
        // The launcher's header names its shader: "//! Launcher(s) of `shaders/NAME.wgsl`".
        let header = source.lines().next().unwrap_or("");
        let shader = header.split('`').nth(1).filter(|s| s.starts_with("shaders/") && s.ends_with(".wgsl"));
        let launcher = path.file_name().unwrap().to_string_lossy().to_string();
        let shader = shader.unwrap_or_else(|| panic!("{launcher} declares Params but its //! line names no shaders/*.wgsl"));
        let wgsl_source = fs::read_to_string(root.join(shader)).unwrap_or_else(|e| panic!("{shader}: {e}"));
        let wgsl_fields = params_body(&wgsl_source).unwrap_or_else(|| panic!("{shader} has no struct Params"));
        if wgsl_fields.iter().any(|(_, ty)| ty.contains("<T>") || ty == "T") {
            // Element-generic parameters (the optimizer's hyperparameters) are laid out per dtype
            // by their launcher and checked by its own tests.
            continue;
        }
        let (rust, rust_size) = lay_out(&rust_fields, |t| rust_type(t, &aliases));
        let (wgsl, wgsl_size) = lay_out(&wgsl_fields, wgsl_type);
        problems.extend(compare(&launcher, &rust, rust_size, &wgsl, wgsl_size));
        checked.push(launcher);
    }
    assert!(checked.len() >= 6, "expected the launchers' Params to be found, checked only {checked:?}");
    assert!(problems.is_empty(), "Params mismatches:\n{}", problems.join("\n"));
}

#[test]
fn a_moved_field_is_caught() {
    // The check itself: swapping two fields, or padding one side only, must be reported.
    let rust = vec![("a".to_string(), "u32".to_string()), ("b".to_string(), "u32".to_string())];
    let swapped = vec![("b".to_string(), "u32".to_string()), ("a".to_string(), "u32".to_string())];
    let aliases = HashMap::new();
    let (r, rs) = lay_out(&rust, |t| rust_type(t, &aliases));
    let (w, ws) = lay_out(&swapped, wgsl_type);
    assert_eq!(compare("t", &r, rs, &w, ws).len(), 2);
    // A vec4 after one u32 starts at byte 16 in WGSL, at byte 4 after a Rust [u32; 4].
    let rust = vec![("a".to_string(), "u32".to_string()), ("v".to_string(), "[u32; 4]".to_string())];
    let wgsl = vec![("a".to_string(), "u32".to_string()), ("v".to_string(), "vec4<u32>".to_string())];
    let (r, rs) = lay_out(&rust, |t| rust_type(t, &aliases));
    let (w, ws) = lay_out(&wgsl, wgsl_type);
    assert!(!compare("t", &r, rs, &w, ws).is_empty());
}
