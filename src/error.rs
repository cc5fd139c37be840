//! Typed errors of the core; `src/python/errors.rs` maps each kind to PyTorch's exception class.

/// Which Python exception an error becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Runtime,
    Index,
    Type,
    Value,
    NotImplemented,
    /// A check PyTorch makes with Python's `assert` (embedding's padding_idx).
    Assertion,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}")]
    BroadcastMismatch { a: usize, b: usize, dim: usize },

    #[error("mat1 and mat2 shapes cannot be multiplied ({m}x{k1} and {k2}x{n})")]
    MatmulShape { m: usize, k1: usize, k2: usize, n: usize },

    #[error("Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")]
    DimOutOfRange { dim: i64, lo: i64, hi: i64 },

    #[error("index {index} is out of bounds for dimension {dim} with size {size}")]
    IndexOutOfRange { index: i64, dim: usize, size: usize },

    #[error("shape '{shape:?}' is invalid for input of size {numel}")]
    InvalidViewShape { shape: Vec<i64>, numel: usize },

    #[error("Trying to create tensor with negative dimension {0}: {1:?}")]
    NegativeDimension(i64, Vec<i64>),

    #[error("tensor size overflows: {0}")]
    SizeOverflow(String),

    /// A shape whose element or byte count does not fit a signed 64-bit integer.
    #[error("Storage size calculation overflowed with sizes={0:?}")]
    StorageSizeOverflow(Vec<usize>),

    #[error("expected scalar type {expected} but found {found}")]
    DTypeMismatch { expected: &'static str, found: &'static str },

    /// Bytes that do not hold what a file format says they should (a corrupt or hostile file).
    #[error("{0}")]
    Deserialize(String),

    #[error("{0}")]
    Runtime(String),

    #[error("{0}")]
    Index(String),

    #[error("{0}")]
    Type(String),

    #[error("{0}")]
    Value(String),

    #[error("{0}")]
    NotImplemented(String),

    #[error("{0}")]
    Assertion(String),
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::DimOutOfRange { .. } | Error::IndexOutOfRange { .. } | Error::Index(_) => ErrorKind::Index,
            Error::Type(_) => ErrorKind::Type,
            Error::Value(_) => ErrorKind::Value,
            Error::NotImplemented(_) => ErrorKind::NotImplemented,
            Error::Assertion(_) => ErrorKind::Assertion,
            _ => ErrorKind::Runtime,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// `Err(Error::Runtime(format!(...)))`, the most common failure.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => { return Err($crate::error::Error::Runtime(format!($($arg)*))) };
}

/// `v` as Python's `repr` writes a float, for messages that quote a Python argument: the
/// shortest round-tripping digits, with a signed two-digit exponent (`1e-05`, `1e+16`).
pub fn python_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    let s = format!("{v:?}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = exp.strip_prefix('-').map_or(("+", exp), |d| ("-", d));
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::python_float;

    #[test]
    fn floats_read_as_python_writes_them() {
        for (v, want) in [(0.0, "0.0"), (-1.0, "-1.0"), (-1e-5, "-1e-05"), (1e-4, "0.0001"), (1e16, "1e+16"), (1.5e300, "1.5e+300")] {
            assert_eq!(python_float(v), want);
        }
        assert_eq!((python_float(f64::NAN), python_float(f64::NEG_INFINITY)), ("nan".into(), "-inf".into()));
    }
}
