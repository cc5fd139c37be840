//! Op declarations: each op is written down once here, and the enum, dispatch, gradient, device
//! op code and Python bindings are generated from that one declaration (see `docs/ADDING_AN_OP.md`).

pub mod binary;
pub mod composite;
pub(crate) mod grad;
pub mod nn;
pub mod reduce;
pub mod reduction;
pub mod unary;
