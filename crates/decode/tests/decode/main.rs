//! The decode crate's integration tests, one binary (issue 29: tests link once per area); each
//! former `tests/*.rs` file is a module of it. Run one with a filter:
//! `cargo test -p etwsim-decode --test decode manifests::`.

#[path = "../common/mod.rs"]
mod common;

mod bounded_decoding;
mod corpus;
mod corpus_mof_manifest;
mod decoder;
mod fileio_names;
mod fixtures;
mod kernel_classes_layouts;
mod kernel_classes_real;
mod manifest_ambiguity;
mod manifest_clr;
mod manifest_encode;
mod manifest_forgiving;
mod manifest_load_rate;
mod manifest_loading_limits;
mod manifests;
mod mof_class;
mod mof_class_corpus;
mod mof_layouts;
mod mof_roundtrip;
mod oracle_tracelogging_dynamic;
mod payload_filter;
mod roundtrip;
mod string_only;
mod tdh_types;
mod wpp_corpus;
mod wpp_throughput;
mod wpp_tmf;
