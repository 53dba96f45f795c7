//! The conformance suite's message types (`cel.expr.conformance.proto2` and
//! `proto3`, their extensions and Google's well-known types), compiled once
//! from the shared `cel-spec/proto` sources.

use std::sync::{Arc, OnceLock};

use cel::proto::{EnumMode, ProtoTypes};

use super::proto_json::Enums;

/// The `.proto` files the suite's messages come from, under `cel-spec/proto`.
const FILES: [&str; 3] = [
    "cel/expr/conformance/proto2/test_all_types.proto",
    "cel/expr/conformance/proto2/test_all_types_extensions.proto",
    "cel/expr/conformance/proto3/test_all_types.proto",
];

/// The compiled types with enums as `enums` says, or why they are not
/// available.
pub fn conformance(enums: Enums) -> Result<Arc<ProtoTypes>, String> {
    static TYPES: OnceLock<Result<ProtoTypes, String>> = OnceLock::new();
    static LEGACY: OnceLock<Result<Arc<ProtoTypes>, String>> = OnceLock::new();
    static STRONG: OnceLock<Result<Arc<ProtoTypes>, String>> = OnceLock::new();
    let compiled = || {
        TYPES
            .get_or_init(|| {
                let dir = super::shared::shared_dir()
                    .map(|d| d.join("cel-spec/proto"))
                    .filter(|d| d.is_dir())
                    .ok_or("cel-spec/proto not found in the shared data")?;
                ProtoTypes::compile(&FILES, &[dir]).map_err(|e| e.to_string())
            })
            .clone()
    };
    let (cell, mode) = match enums {
        Enums::Legacy => (&LEGACY, EnumMode::Legacy),
        Enums::Strong => (&STRONG, EnumMode::Strong),
    };
    cell.get_or_init(|| compiled().map(|t| Arc::new(t.with_enum_mode(mode))))
        .clone()
}
