//! `kcel gen`: OpenAPI schemas (`kcel gen schema`) or a whole CRD (`kcel gen crd`) from `.proto`
//! files with `+kubebuilder` markers.
//!
//! Before anything is written, the CEL rules of the generated schemas are checked
//! ([`kcel_kube::rule_review::check_rules`]); problems are reported on stderr and nothing is written (exit 1), unless
//! `--no-check` is given. Generation errors and warnings are printed as `file:line: level: message`.
//!
//! Exit codes: 0 written, 1 generation failed or the rules have problems, 2 usage error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use kcel_proto::{CrdSpec, DescriptionMode, Options, Request, yaml};

/// Arguments of `kcel gen`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// Print the OpenAPI schemas of the messages, keyed `package.Message`.
    Schema(Common),
    /// Print a CustomResourceDefinition whose spec is a message's schema.
    Crd(CrdArgs),
}

/// Options shared by `gen schema` and `gen crd`.
#[derive(clap::Args)]
struct Common {
    /// The .proto files to generate from.
    #[arg(required = true, value_name = "FILE.proto")]
    files: Vec<PathBuf>,
    /// An include path for the files and their imports (repeatable; default: each file's folder).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    includes: Vec<PathBuf>,
    /// Only this message (full name, e.g. `test.Msg`); for `crd`, the spec message.
    #[arg(long, value_name = "pkg.Msg")]
    message: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Do not check the generated CEL rules before writing.
    #[arg(long)]
    no_check: bool,
    /// 64-bit integers as protoc-gen-openapi's default (with x-kubernetes-int-or-string), not skv2's.
    #[arg(long)]
    int64_as_int_or_string: bool,
    /// Leave oneofs unconstrained (skv2 constrains them to at most one member).
    #[arg(long)]
    no_oneof: bool,
    /// How comments become descriptions.
    #[arg(long, value_enum, default_value_t = Descriptions::Multiline)]
    descriptions: Descriptions,
    /// Enums as int-or-string, without their value list.
    #[arg(long)]
    enum_as_int_or_string: bool,
    /// Generate this message (full name) as an opaque object (repeatable).
    #[arg(long, value_name = "pkg.Msg")]
    empty_schema: Vec<String>,
    /// Ignore marker lines containing this text (repeatable).
    #[arg(long, value_name = "TEXT")]
    ignore_marker: Vec<String>,
    /// Keep only the Type and Required markers.
    #[arg(long)]
    disable_kube_markers: bool,
    /// google.protobuf.FieldMask as a string (its JSON form) rather than an object.
    #[arg(long)]
    field_mask_as_string: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Descriptions {
    Multiline,
    SingleLine,
    None,
}

/// Options of `gen crd`.
#[derive(clap::Args)]
struct CrdArgs {
    #[command(flatten)]
    common: Common,
    /// API group, e.g. example.com.
    #[arg(long)]
    group: String,
    /// Kind, e.g. Widget.
    #[arg(long)]
    kind: String,
    /// Version, e.g. v1.
    #[arg(long)]
    version: String,
    /// Plural name (default: the lower-cased kind plus "s").
    #[arg(long)]
    plural: Option<String>,
    /// Resource scope.
    #[arg(long, value_enum, default_value_t = ScopeArg::Namespaced)]
    scope: ScopeArg,
    /// The status message (full name); adds the status subresource.
    #[arg(long, value_name = "pkg.Msg")]
    status_message: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ScopeArg {
    #[value(name = "Namespaced")]
    Namespaced,
    #[value(name = "Cluster")]
    Cluster,
}

/// Runs `kcel gen`.
pub fn run(args: Args) -> ExitCode {
    let (common, generated) = match args.what {
        What::Schema(common) => {
            let req = request(&common);
            let result = kcel_proto::generate(&req).map(|g| (g.document(), g.warnings));
            (common, result)
        }
        What::Crd(crd) => {
            let req = request(&crd.common);
            let spec = CrdSpec {
                group: crd.group,
                kind: crd.kind,
                version: crd.version,
                plural: crd.plural,
                scope: match crd.scope {
                    ScopeArg::Namespaced => kcel_proto::Scope::Namespaced,
                    ScopeArg::Cluster => kcel_proto::Scope::Cluster,
                },
            };
            let result = kcel_proto::generate_crd(&req, &spec, crd.status_message.as_deref())
                .map(|g| (g.crd, g.warnings));
            (crd.common, result)
        }
    };
    let (doc, warnings) = match generated {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    for w in &warnings {
        eprintln!("{w}");
    }
    if !common.no_check {
        let problems = kcel_kube::rule_review::check_rules(&doc);
        if !problems.is_empty() {
            for p in &problems {
                eprintln!("{p}");
            }
            eprintln!(
                "kcel gen: {} problem(s) in the generated rules; nothing written (--no-check writes anyway)",
                problems.len()
            );
            return ExitCode::from(1);
        }
    }
    let text = match yaml::into_yaml(doc) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kcel gen: {e}");
            return ExitCode::from(1);
        }
    };
    match &common.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("kcel gen: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}

/// The library request for the shared options.
fn request(c: &Common) -> Request {
    let mut req = Request::new(c.files.clone(), c.includes.clone());
    req.message = c.message.clone();
    req.options = Options {
        int_native: !c.int64_as_int_or_string,
        proto_oneof: !c.no_oneof,
        descriptions: match c.descriptions {
            Descriptions::Multiline => DescriptionMode::Multiline,
            Descriptions::SingleLine => DescriptionMode::SingleLine,
            Descriptions::None => DescriptionMode::None,
        },
        enum_as_int_or_string: c.enum_as_int_or_string,
        additional_empty_schemas: c.empty_schema.clone(),
        ignored_marker_substrings: c.ignore_marker.clone(),
        disable_kube_markers: c.disable_kube_markers,
        field_mask_as_string: c.field_mask_as_string,
        ..Options::default()
    };
    req
}
