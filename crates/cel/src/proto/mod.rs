//! Protobuf messages as CEL values (feature `proto`), from descriptors read
//! at run time: cel-go's `common/types/pb` (the registry of files, field
//! types and well-known types) and `common/types/provider.go` (the type
//! provider, message construction, native values).
//!
//! * [`ProtoTypes`] (this file): a descriptor pool, built from `.proto` files
//!   (compiled with `protox`) or from a pool; the environment's
//!   [`TypeProvider`](crate::checker::TypeProvider) (`provider.rs`);
//! * `message.rs`: a message as a CEL value (an [`Opaque`](crate::value::Opaque)
//!   whose type is `Type::Object`): selection, `has()`, equality;
//! * `convert.rs`: protobuf values ↔ CEL values (well-known types unwrap to
//!   CEL's own values, `Any` unpacks, wrappers read `null` when unset);
//! * `enums.rs`: enums as `int`s (legacy, the default) or as types of their
//!   own ([`EnumMode::Strong`]) with their conversion functions;
//! * `json.rs`: protobuf JSON (with `[extension]` keys and `@type` for `Any`)
//!   → messages, for hosts and tests that read messages as JSON.
//!
//! Messages are `Value::Opaque`, not a new `Value` variant: no match of the
//! engine's fast paths (maps, lists, scalars) gains an arm, and the only hooks
//! are the `Opaque::select`/`has`/`to_json` defaults and
//! `TypeProvider::new_object`/`enum_constant`, which non-proto hosts never
//! reach.

mod convert;
mod enums;
mod json;
mod message;
mod provider;

use std::fmt;
use std::path::Path;

use prost_reflect::{DescriptorPool, MessageDescriptor};

pub use enums::{EnumMode, EnumValue};
pub use message::Message;

/// Why a descriptor set or a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtoError {
    /// `.proto` files that do not compile (the compiler's message).
    Compile(String),
    /// A message name the pool does not define.
    UnknownType(String),
    /// JSON that is not a valid message of its type (what and where).
    Json(String),
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtoError::Compile(m) => write!(f, "cannot compile protobuf files: {m}"),
            ProtoError::UnknownType(n) => write!(f, "unknown message type: {n}"),
            ProtoError::Json(m) => write!(f, "invalid message JSON: {m}"),
        }
    }
}

impl std::error::Error for ProtoError {}

/// Google's well-known types, compiled into every [`ProtoTypes`].
const WELL_KNOWN_FILES: [&str; 7] = [
    "google/protobuf/any.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/wrappers.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
];

/// A `.proto` file given as text, for [`ProtoTypes::from_source`].
struct SourceFile {
    name: String,
    source: String,
}

impl protox::file::FileResolver for SourceFile {
    fn open_file(&self, name: &str) -> Result<protox::file::File, protox::Error> {
        if name == self.name {
            protox::file::File::from_source(name, &self.source)
        } else {
            Err(protox::Error::file_not_found(name))
        }
    }
}

/// The message and enum types of a descriptor pool, with Google's
/// well-known types (always included).
#[derive(Clone)]
pub struct ProtoTypes {
    pool: DescriptorPool,
    /// How enums appear in CEL (legacy `int`s unless set).
    enums: EnumMode,
}

/// The files (`prost-reflect`'s own `Debug` prints every descriptor).
impl fmt::Debug for ProtoTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.pool.files().map(|file| file.name().to_string()))
            .finish()
    }
}

impl ProtoTypes {
    /// The types of `pool`.
    pub fn from_pool(pool: DescriptorPool) -> Self {
        ProtoTypes {
            pool,
            enums: EnumMode::Legacy,
        }
    }

    /// These types with enums in `mode` (cel-spec's legacy or strong enums).
    pub fn with_enum_mode(mut self, mode: EnumMode) -> Self {
        self.enums = mode;
        self
    }

    /// How enums appear in CEL.
    pub fn enum_mode(&self) -> EnumMode {
        self.enums
    }

    /// The functions these types bring: under [`EnumMode::Strong`], each
    /// enum's conversions `E(int)`, `E(string)` and `int(E)`; none otherwise.
    /// [`ProtoTypes`] in an `Arc` is a [`Library`](crate::Library) that
    /// installs itself as the type provider with these functions.
    pub fn functions(&self) -> Vec<crate::functions::Function> {
        enums::enum_functions(&self.pool, self.enums)
    }

    /// Compiles `files` (paths relative to one of `includes`, or files under
    /// one of them) with their imports; Google's well-known types resolve
    /// without an include directory. With no `includes`, each file's folder
    /// is one.
    pub fn compile<F: AsRef<Path>, I: AsRef<Path>>(
        files: &[F],
        includes: &[I],
    ) -> Result<Self, ProtoError> {
        let err = |e: protox::Error| ProtoError::Compile(e.to_string());
        let mut dirs: Vec<&Path> = includes.iter().map(AsRef::as_ref).collect();
        if dirs.is_empty() {
            for f in files {
                let parent = f.as_ref().parent().unwrap_or(Path::new(""));
                let dir = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        let compiler = protox::Compiler::new(dirs).map_err(err)?;
        Self::finish(compiler, files)
    }

    /// Compiles one file given as text (`name` is how imports would name
    /// it); it may import Google's well-known types.
    pub fn from_source(name: &str, source: &str) -> Result<Self, ProtoError> {
        let mut resolver = protox::file::ChainFileResolver::new();
        resolver.add(SourceFile {
            name: name.to_string(),
            source: source.to_string(),
        });
        resolver.add(protox::file::GoogleFileResolver::new());
        Self::finish(protox::Compiler::with_file_resolver(resolver), &[name])
    }

    /// Opens `files` and the well-known types, and builds the pool.
    fn finish<F: AsRef<Path>>(
        mut compiler: protox::Compiler,
        files: &[F],
    ) -> Result<Self, ProtoError> {
        let err = |e: protox::Error| ProtoError::Compile(e.to_string());
        compiler.include_imports(true);
        for f in files {
            compiler.open_file(f).map_err(err)?;
        }
        // Well-known types every CEL environment knows, whether imported or not.
        for wkt in WELL_KNOWN_FILES {
            compiler.open_file(wkt).map_err(err)?;
        }
        Ok(Self::from_pool(compiler.descriptor_pool()))
    }

    /// Only Google's well-known types.
    pub fn well_known() -> Result<Self, ProtoError> {
        Self::compile::<&str, &str>(&[], &[])
    }

    /// The message type `name` names from `container` (cel-go's candidate
    /// names, most qualified first), as its full name and CEL type.
    pub fn resolve(&self, container: &str, name: &str) -> Option<(String, crate::Type)> {
        use crate::checker::TypeProvider as _;
        crate::checker::names::resolve_candidates(container, name, |c| {
            self.find_type(c).map(|t| (c.to_string(), t))
        })
    }

    /// The descriptor pool.
    pub fn pool(&self) -> &DescriptorPool {
        &self.pool
    }

    /// The message type named `name` (fully qualified, no leading dot).
    pub fn message(&self, name: &str) -> Result<MessageDescriptor, ProtoError> {
        self.pool
            .get_message_by_name(name)
            .ok_or_else(|| ProtoError::UnknownType(name.to_string()))
    }

    /// A message of type `type_name` read from protobuf JSON, as a CEL value
    /// (well-known types become CEL values, others a [`Message`]).
    pub fn value_from_json(
        &self,
        type_name: &str,
        json: &serde_json::Value,
    ) -> Result<crate::Value, ProtoError> {
        let desc = self.message(type_name)?;
        let msg = json::message(&desc, json, 0)?;
        convert::message_to_cel(&msg, self.enums)
            .map_err(|e| ProtoError::Json(e.message().to_string()))
    }

    /// A `google.protobuf.Any` in JSON (`{"@type": "type.googleapis.com/T", ...}`)
    /// as a CEL value of type `T`.
    pub fn value_from_any_json(
        &self,
        json: &serde_json::Value,
    ) -> Result<crate::Value, ProtoError> {
        let any = json::message(&self.message(json::ANY)?, json, 0)?;
        convert::message_to_cel(&any, self.enums)
            .map_err(|e| ProtoError::Json(e.message().to_string()))
    }
}

/// The types as the environment's provider, with their functions
/// ([`ProtoTypes::functions`]).
impl crate::Library for std::sync::Arc<ProtoTypes> {
    fn install(&self, env: &mut crate::EnvBuilder) {
        for f in self.functions() {
            env.add_function(f);
        }
        env.type_provider = Some(self.clone());
    }
}

#[cfg(test)]
mod tests;
