//! Built-in Kubernetes kinds (`ConfigMap`, `Namespace`, `Deployment`, `Pod`, RBAC, ...),
//! validated offline against Kubernetes' own OpenAPI v3 schemas for the selected release.
//!
//! kube-apiserver does not validate built-in kinds with OpenAPI: it decodes the body strictly
//! into Go structs, then runs hand-written validation. kcel validates at the schema level, as
//! kubectl-validate does, and answers with kube-apiserver's texts where its behaviour is
//! knowable:
//!
//! 1. [`decode`]: the typed decoding, as Go's decoder reports it (400 BadRequest, `json: cannot
//!    unmarshal ... into Go struct field ...`, quantity syntax, base64, RFC 3339 times);
//! 2. the custom-resource pipeline ([`crate::pipeline::Pipeline`]) on a CRD synthesized from the
//!    kind's schema ([`convert`]): unknown fields (strict: 400 `strict decoding error: unknown
//!    field "..."`, sorted as the typed decoder sorts them; warn; ignore), object metadata, types,
//!    required fields, enums, formats, `x-kubernetes-list-type` duplicates and map keys, scope;
//! 3. [`overlay`]: a few hand-written checks the schemas lack, each citing the Go function that
//!    decides (container `image` required, container port `protocol` values, the name rules of
//!    namespaces, services and RBAC objects).
//!
//! The status names the kind as the server does: `Pod "x" is invalid` for the core group,
//! `Deployment.apps "x" is invalid` otherwise.
//!
//! Not checked: the rest of Kubernetes' hand-written validation (`pkg/apis/*/validation`:
//! enumerations the published schemas no longer list (`restartPolicy`, `imagePullPolicy`,
//! service `type`, ...), label selectors matching templates, port ranges, kind-specific name
//! rules beyond the overlay's, immutable fields on update, cross-field rules, ...), admission,
//! defaulting by Go functions (schema `default`s apply instead), finalizer-name warnings (a
//! custom-resource strategy's), the CEL rules of `x-kubernetes-validations` in the published
//! schemas (dropped), and named Go types in decode errors of types added after Kubernetes 1.35
//! (the table of named types is read from 1.35's Go types).
//!
//! Releases: the schemas of Kubernetes 1.28 to 1.35 are shipped ([`shipped`]); 1.36 and 1.37
//! use 1.35's, with a notice ([`Builtins::notice`]). `--schemas DIR`
//! ([`crate::ValidatorBuilder::schemas_dir`]) adds or overrides group-versions.

pub mod convert;
pub mod decode;
pub mod openapi;
pub mod overlay;
pub mod shipped;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::crd::CustomResourceDefinition;
use crate::pipeline::{Operation, Options, Pipeline, PreparedSchema, Response, bad_request};
use crate::version::KubeVersion;
use convert::GoType;
use openapi::GroupVersion;

/// Why built-in schemas cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuiltinError {
    /// The shipped data is damaged.
    #[error(transparent)]
    Shipped(#[from] shipped::ShippedError),
    /// A `--schemas` file cannot be read.
    #[error("{path}: {message}")]
    Schemas {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A converted schema is not a schema kcel reads.
    #[error("built-in kind {kind} of {api_version}: {message}")]
    Convert {
        /// The group-version.
        api_version: String,
        /// The kind.
        kind: String,
        /// What is wrong.
        message: String,
    },
}

/// A built-in kind ready to validate: a CRD synthesized from its schema, and its Go types.
pub struct BuiltinKind {
    /// The CRD serving it (one version, the kind's scope, its converted schema).
    pub crd: CustomResourceDefinition,
    /// Its Go types, for decoding.
    pub go_type: GoType,
    /// What the pipeline derives from the schema, built once.
    prepared: Arc<PreparedSchema>,
}

/// The built-in kinds of a validator: the shipped release, group-versions added with
/// `--schemas`, and the kinds converted so far (each once, shared by all requests).
pub struct Builtins {
    /// The shipped release used (minor), if any.
    release: Option<u32>,
    /// The requested release, when the shipped one is older.
    requested: u32,
    /// Group-versions from OpenAPI documents, by `apiVersion`; they override the shipped ones.
    overrides: BTreeMap<String, Arc<GroupVersion>>,
    shipped_group_versions: Mutex<HashMap<String, Option<Arc<GroupVersion>>>>,
    kinds: Mutex<HashMap<KindKey, Option<Arc<BuiltinKind>>>>,
    /// Whether a shipped kind has served an object.
    used: AtomicBool,
}

/// `(apiVersion, kind)`.
type KindKey = (String, String);

/// The shipped release serving Kubernetes 1.`minor` (the newest shipped for newer releases).
pub fn release_for(version: KubeVersion) -> u32 {
    version
        .minor()
        .clamp(shipped::OLDEST_RELEASE, shipped::NEWEST_RELEASE)
}

impl Builtins {
    /// The built-in kinds of `version`; `shipped`: whether the shipped schemas serve (else only
    /// group-versions added with [`Builtins::add_document`]).
    pub fn new(version: KubeVersion, shipped: bool) -> Builtins {
        Builtins {
            release: shipped.then(|| release_for(version)),
            requested: version.minor(),
            overrides: BTreeMap::new(),
            shipped_group_versions: Mutex::new(HashMap::new()),
            kinds: Mutex::new(HashMap::new()),
            used: AtomicBool::new(false),
        }
    }

    /// A notice, once a shipped built-in kind has served an object, when the shipped schemas are
    /// of an older release than the one reproduced.
    pub fn notice(&self) -> Option<String> {
        let release = self.release?;
        if !self.used.load(Ordering::Relaxed) {
            return None;
        }
        (release != self.requested).then(|| {
            format!(
                "built-in kinds of Kubernetes 1.{} are validated with the schemas of 1.{release}, the newest kcel ships",
                self.requested
            )
        })
    }

    /// Adds the group-versions of an OpenAPI v3 document (they replace the shipped ones of the
    /// same `apiVersion`, kind by kind).
    pub fn add_document(&mut self, doc: &Value, path: &str) -> Result<usize, BuiltinError> {
        let gvs = openapi::group_versions(doc).map_err(|e| BuiltinError::Schemas {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        let n = gvs.len();
        for gv in gvs {
            let merged = match self.overrides.remove(&gv.api_version) {
                Some(old) => {
                    let mut merged = (*old).clone();
                    merged.kinds.extend(gv.kinds);
                    merged.definitions.extend(gv.definitions);
                    merged
                }
                None => gv,
            };
            self.overrides
                .insert(merged.api_version.clone(), Arc::new(merged));
        }
        Ok(n)
    }

    /// The group-version defining `kind` of `api_version`: an OpenAPI document's, else the
    /// shipped release's.
    fn group_version(
        &self,
        api_version: &str,
        kind: &str,
    ) -> Result<Option<Arc<GroupVersion>>, BuiltinError> {
        if let Some(gv) = self.overrides.get(api_version)
            && gv.kinds.contains_key(kind)
        {
            return Ok(Some(gv.clone()));
        }
        let Some(release) = self.release else {
            return Ok(None);
        };
        let mut cache = self
            .shipped_group_versions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(gv) = cache.get(api_version) {
            return Ok(gv.clone());
        }
        let gv = shipped::group_version(release, api_version)?.map(Arc::new);
        cache.insert(api_version.to_string(), gv.clone());
        Ok(gv)
    }

    /// The kinds of `api_version`: an OpenAPI document's and the shipped release's, sorted.
    pub fn kind_names(&self, api_version: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .overrides
            .get(api_version)
            .map(|gv| gv.kinds.keys().cloned().collect())
            .unwrap_or_default();
        if let Some(release) = self.release
            && let Ok(Some(gv)) = shipped::group_version(release, api_version)
        {
            names.extend(gv.kinds.keys().cloned());
        }
        names.sort();
        names.dedup();
        names
    }

    /// The built-in kind serving `api_version` and `kind`, converted on first use.
    pub fn kind(
        &self,
        api_version: &str,
        kind: &str,
    ) -> Result<Option<Arc<BuiltinKind>>, BuiltinError> {
        let key = (api_version.to_string(), kind.to_string());
        let cached = self
            .kinds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(k) = cached {
            self.note_use(&k);
            return Ok(k);
        }
        let built = match self.group_version(api_version, kind)? {
            Some(gv) => build_kind(&gv, kind)?.map(Arc::new),
            None => None,
        };
        self.kinds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, built.clone());
        self.note_use(&built);
        Ok(built)
    }

    /// Records that a kind served an object (shipped or not: the notice is about releases).
    fn note_use(&self, kind: &Option<Arc<BuiltinKind>>) {
        if kind.is_some() {
            self.used.store(true, Ordering::Relaxed);
        }
    }
}

/// How deep `--schemas` directories are searched.
const MAX_SCHEMAS_DIR_DEPTH: usize = 16;

/// The `*.json` files under `dir` (or `dir` itself when it is a file), recursively.
pub(crate) fn collect_json(
    dir: &Path,
    out: &mut Vec<std::path::PathBuf>,
    depth: usize,
) -> std::io::Result<()> {
    if depth > MAX_SCHEMAS_DIR_DEPTH {
        return Err(std::io::Error::other(format!(
            "directories nest deeper than {MAX_SCHEMAS_DIR_DEPTH} levels"
        )));
    }
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_json(&path, out, depth + 1)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// Converts `kind` of `gv` into a synthesized CRD.
fn build_kind(gv: &GroupVersion, kind: &str) -> Result<Option<BuiltinKind>, BuiltinError> {
    let Some(entry) = gv.kinds.get(kind) else {
        return Ok(None);
    };
    // The overlay adds no `$ref`: the definitions the kind reaches are all the conversion reads.
    let mut definitions: BTreeMap<String, Value> =
        openapi::reachable(&gv.definitions, &entry.definition)
            .into_iter()
            .filter_map(|name| Some((name.clone(), gv.definitions.get(&name)?.clone())))
            .collect();
    overlay::patch(&mut definitions);
    let converted = convert::convert(&definitions, &entry.definition);
    let (group, version) = gv
        .api_version
        .rsplit_once('/')
        .unwrap_or(("", gv.api_version.as_str()));
    let plural = format!("{}s", kind.to_lowercase());
    let has_status = converted.schema.pointer("/properties/status").is_some();
    let mut version_json = json!({
        "name": version,
        "served": true,
        "storage": true,
        "schema": {"openAPIV3Schema": converted.schema},
    });
    if has_status {
        version_json["subresources"] = json!({"status": {}});
    }
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": if group.is_empty() { plural.clone() } else { format!("{plural}.{group}") }},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "listKind": format!("{kind}List")},
            "scope": if entry.namespaced { "Namespaced" } else { "Cluster" },
            "versions": [version_json],
        },
    });
    let crd: CustomResourceDefinition =
        serde_json::from_value(crd).map_err(|e| BuiltinError::Convert {
            api_version: gv.api_version.clone(),
            kind: kind.to_string(),
            message: e.to_string(),
        })?;
    let Some(prepared) = crd.spec.versions.first().map(PreparedSchema::new) else {
        return Err(BuiltinError::Convert {
            api_version: gv.api_version.clone(),
            kind: kind.to_string(),
            message: "the synthesized CRD has no version".into(),
        });
    };
    Ok(Some(BuiltinKind {
        crd,
        go_type: converted.go_type,
        prepared: Arc::new(prepared),
    }))
}

/// Validates a request for a built-in kind: typed decoding, then the pipeline.
pub fn run(
    kind: &BuiltinKind,
    object: Value,
    duplicates: &[String],
    operation: &Operation,
    options: &Options,
) -> Response {
    let crd = &kind.crd;
    let version = crd.spec.versions.first().map_or("", |v| v.name.as_str());
    let kind_name = crd.spec.names.kind.as_str();
    if let Err(e) = decode::decode(&object, &kind.go_type) {
        return bad_request(kind_name, version, e.into());
    }
    let pipeline = match Pipeline::with_prepared(crd, version, Arc::clone(&kind.prepared), None) {
        Ok(p) => p.as_builtin_kind(overlay::name_rule(&crd.spec.group, kind_name)),
        Err(e) => return bad_request(kind_name, version, e.into()),
    };
    let mut response = pipeline.run_with_duplicates(object, duplicates, operation, options);
    sort_unknown_fields(&mut response, kind_name, version);
    response
}

/// The typed strict decoder lists unknown fields sorted (`sigs.k8s.io/json`), where the
/// custom-resource pruner lists them in schema order.
fn sort_unknown_fields(response: &mut Response, kind: &str, version: &str) {
    if response.unknown_fields.len() < 2 {
        return;
    }
    let strict_errors = |r: &Response| -> Vec<String> {
        r.duplicate_fields
            .iter()
            .chain(&r.unknown_fields)
            .cloned()
            .collect()
    };
    let before = strict_errors(response);
    response.unknown_fields.sort();
    let after = strict_errors(response);
    if response.status.code == Some(400)
        && response.status.message.contains("strict decoding error: ")
    {
        response.status.message = format!(
            "{kind} in version {version:?} cannot be handled as a {kind}: strict decoding error: {}",
            after.join(", ")
        );
    }
    if response.warnings.starts_with(&before) {
        response.warnings.splice(0..before.len(), after);
    }
}
