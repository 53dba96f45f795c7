//! Data-driven test of admission policies against Kubernetes' own test tables, extracted with
//! provenance into `tests/data/admission/*.json` (each file's generator, `gen_*.py` beside it,
//! names the Go test and source line of every case):
//!
//! * `compile.json`: `TestCompileValidatingPolicyExpression` (`pkg/admission/plugin/cel`): the
//!   admission environment's variables, libraries and result types, as a validation and as an
//!   audit annotation value;
//! * `matching.json`: `TestMatcher` (`pkg/admission/plugin/policy/matching`): resource rules,
//!   names, exclusions, `matchPolicy`, subresources, selector errors;
//! * `typechecking.json`: `TestExtractTypeNames` and `TestTypeCheck`
//!   (`pkg/admission/plugin/policy/validating`): the kinds a policy is type-checked against and
//!   its `status.typeChecking` warnings, equal to the real type checker's (recorded by
//!   `tests/gen/typechecking`) and meeting the Go test's assertions.
//!
//! One trial per record, named `<kind>/<case>[/<subtest>]` (`typechecking/<test>/<case>`); skipped records are listed with
//! their reason in `tests/admission_tables.skip`. The run ends with the libtest summary and one
//! line `N passed, N failed, N skipped`, and fails when fewer trials ran than the data holds.

#[path = "common/table_runner.rs"]
mod table_runner;

use std::process::ExitCode;
use std::sync::Arc;

use cel::{EnvBuilder, Function, Library, Overload, Type};
use kcel_kube::KubeVersion;
use kcel_kube::admission::environment::{Compiler, Optional, ReturnTypes};
use kcel_kube::admission::matching::{Cluster, matches};
use kcel_kube::admission::model::{MatchResources, ValidatingAdmissionPolicy};
use kcel_kube::admission::request::{
    Attributes, GroupVersionKind, GroupVersionResource, Operation, UserInfo,
};
use kcel_kube::admission::typechecking::{self, Gvk, KindResolver};
use kcel_kube::rules::env::ExtraLibrary;
use kcel_kube::rules::{EnvKind, EnvSpec};
use kcel_kube::schema_props::JsonSchemaProps;
use kcel_kube::validator::guess_kind_to_resource;
use libtest_mimic::Trial;
use serde_json::Value;
use table_runner::{is_skipped, run_tables, skip_patterns};

/// The data files, embedded so the test needs nothing outside the repository.
const DATA: [(&str, &str); 3] = [
    ("compile.json", include_str!("data/admission/compile.json")),
    (
        "matching.json",
        include_str!("data/admission/matching.json"),
    ),
    (
        "typechecking.json",
        include_str!("data/admission/typechecking.json"),
    ),
];

/// `library.Test()`: `test()`, a function Kubernetes' tests add at version 1.999 so that only
/// the stored-expressions view has it.
struct TestLibrary;

impl Library for TestLibrary {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("test").overload(Overload::global(
            "test",
            vec![],
            Type::Bool,
            None,
        )));
    }
}

fn run_compile(r: &Value) -> Result<(), String> {
    let env = if r["envType"] == "StoredExpressions" {
        EnvKind::StoredExpressions
    } else {
        EnvKind::NewExpressions
    };
    let mut spec = EnvSpec::new(KubeVersion::NEWEST, env);
    spec.extra.push(ExtraLibrary {
        introduced_minor: 999,
        library: Arc::new(TestLibrary),
    });
    let compiler = Compiler::with_spec(spec);
    let returns = match r["returns"].as_str() {
        Some("bool") => ReturnTypes::Bool,
        Some("string|null") => ReturnTypes::StringOrNull,
        other => return Err(format!("unknown return types {other:?}")),
    };
    let optional = Optional {
        params: r["hasParams"].as_bool().unwrap_or(false),
        authorizer: r["hasAuthorizer"].as_bool().unwrap_or(false),
        patch_types: false,
    };
    let expression = r["expression"].as_str().ok_or("no expression")?;
    let result = compiler.compile(expression, returns, optional);
    match (result, r["error"].as_str()) {
        (Ok(_), None) => Ok(()),
        (Ok(_), Some(want)) => Err(format!("compiled, expected an error containing {want:?}")),
        (Err(e), None) => Err(format!("unexpected error: {e}")),
        (Err(e), Some(want)) if e.to_string().contains(want) => Ok(()),
        (Err(e), Some(want)) => Err(format!(
            "error {:?} does not contain {want:?}",
            e.to_string()
        )),
    }
}

fn gvr(v: &Value) -> GroupVersionResource {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    GroupVersionResource {
        group: s("group"),
        version: s("version"),
        resource: s("resource"),
    }
}

fn gvk(v: &Value) -> GroupVersionKind {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    GroupVersionKind {
        group: s("group"),
        version: s("version"),
        kind: s("kind"),
    }
}

/// The test's `EquivalentResourceRegistry`: resources grouped by identity (every group's
/// `deployments` share one), per subresource, in registration order, each with its kind.
struct Registry(Vec<(GroupVersionResource, String, GroupVersionKind)>);

impl Registry {
    fn identity(r: &GroupVersionResource) -> String {
        if r.resource == "deployments" {
            "/deployments".into()
        } else {
            format!("{}/{}", r.group, r.resource)
        }
    }
}

impl Cluster for Registry {
    fn equivalents(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Vec<(GroupVersionResource, GroupVersionKind)> {
        let id = Registry::identity(resource);
        self.0
            .iter()
            .filter(|(r, s, _)| Registry::identity(r) == id && s == subresource)
            .map(|(r, _, k)| (r.clone(), k.clone()))
            .collect()
    }

    fn namespace(&self, _name: &str) -> Option<Value> {
        None
    }
}

fn run_matching(registry: &Registry, r: &Value) -> Result<(), String> {
    let criteria: MatchResources =
        serde_json::from_value(r["criteria"].clone()).map_err(|e| format!("criteria: {e}"))?;
    let a = &r["attrs"];
    let s = |k: &str| a[k].as_str().unwrap_or_default().to_string();
    let attr = Attributes {
        kind: gvk(&a["kind"]),
        resource: gvr(&a["resource"]),
        subresource: s("subresource"),
        name: s("name"),
        namespace: s("namespace"),
        operation: match a["operation"].as_str() {
            Some("CREATE") => Operation::Create,
            other => return Err(format!("unexpected operation {other:?}")),
        },
        object: None,
        old_object: None,
        user: UserInfo::default(),
        dry_run: false,
    };
    let got = matches(&attr, &criteria, registry);
    let matched = match (got, r["error"].as_str()) {
        (Err(e), Some(want)) if e.to_string().contains(want) => return Ok(()),
        (Err(e), _) => return Err(format!("unexpected error {:?}", e.to_string())),
        (Ok(_), Some(want)) => return Err(format!("no error, expected one containing {want:?}")),
        (Ok(m), None) => m,
    };
    let want = r["matches"].as_bool().ok_or("no matches expectation")?;
    if matched.is_some() != want {
        return Err(format!("matches = {}, expected {want}", matched.is_some()));
    }
    if let Some(m) = matched {
        if r.get("matchKind").is_some() && m.kind != gvk(&r["matchKind"]) {
            return Err(format!(
                "matched kind {:?}, expected {}",
                m.kind, r["matchKind"]
            ));
        }
        let resource = r
            .get("matchResource")
            .map_or_else(|| attr.resource.clone(), gvr);
        if m.resource != resource {
            return Err(format!(
                "matched resource {:?}, expected {resource:?}",
                m.resource
            ));
        }
    }
    Ok(())
}

/// The Go test's `buildTypeChecker`: a RESTMapper of fixed kinds (resources guessed from the
/// kinds, as `DefaultRESTMapper.Add` guesses them) and one schema for every kind.
struct FixedKinds {
    kinds: Vec<Gvk>,
    schema: Option<JsonSchemaProps>,
}

impl KindResolver for FixedKinds {
    fn kinds_for(&self, group: &str, version: &str, resource: &str) -> Vec<String> {
        self.kinds
            .iter()
            .filter(|k| {
                k.group == group
                    && k.version == version
                    && guess_kind_to_resource(&k.kind) == resource
            })
            .map(|k| k.kind.clone())
            .collect()
    }

    fn schema(&self, _gvk: &Gvk) -> Option<JsonSchemaProps> {
        self.schema.clone()
    }
}

fn gvks(v: &Value) -> Result<Vec<Gvk>, String> {
    serde_json::from_value::<Vec<Value>>(v.clone())
        .map_err(|e| e.to_string())?
        .iter()
        .map(|g| {
            let s = |k: &str| {
                g[k].as_str()
                    .map(str::to_string)
                    .ok_or(format!("{k} missing"))
            };
            Ok(Gvk {
                group: s("group")?,
                version: s("version")?,
                kind: s("kind")?,
            })
        })
        .collect()
}

fn run_typechecking(kinds: &[Gvk], r: &Value) -> Result<(), String> {
    let mut policy: ValidatingAdmissionPolicy =
        serde_json::from_value(r["policy"].clone()).map_err(|e| format!("policy: {e}"))?;
    policy.set_defaults();
    let schema = match r.get("schema") {
        Some(s) => Some(serde_json::from_value(s.clone()).map_err(|e| format!("schema: {e}"))?),
        None => None,
    };
    let resolver = FixedKinds {
        kinds: kinds.to_vec(),
        schema,
    };
    if r["provenance"]["test"] == "TestExtractTypeNames" {
        let got = typechecking::types_to_check(&policy, &resolver);
        let want = gvks(&r["gvks"])?;
        return (got == want)
            .then_some(())
            .ok_or(format!("kinds: got {got:?}, want {want:?}"));
    }
    let got = typechecking::check(&policy, &resolver, KubeVersion::new(35).ok_or("no 1.35")?);
    // The Go test's own assertions.
    if let Some(refs) = r.get("fieldRefs") {
        let got_refs: Vec<&str> = got.iter().map(|w| w.field_ref.as_str()).collect();
        let want_refs: Vec<&str> = refs
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if got_refs != want_refs {
            return Err(format!("fieldRefs: got {got_refs:?}, want {want_refs:?}"));
        }
    }
    if let Some(n) = r["length"].as_u64()
        && got.len() as u64 != n
    {
        return Err(format!("{} warnings, want {n}", got.len()));
    }
    for c in r["contains"].as_array().into_iter().flatten() {
        let c = c.as_str().unwrap_or_default();
        if got.is_empty() || got.iter().any(|w| !w.warning.contains(c)) {
            return Err(format!("a warning lacks {c:?}: {got:?}"));
        }
    }
    let got_json = serde_json::to_value(&got).map_err(|e| e.to_string())?;
    let want = r.get("warnings").ok_or("no recorded server warnings")?;
    // The real type checker's warnings.
    if &got_json != want {
        return Err(format!("warnings: got {got_json:#}, want {want:#}"));
    }
    Ok(())
}

fn trials() -> Result<(Vec<Trial>, usize), String> {
    let skips = skip_patterns(include_str!("admission_tables.skip"));
    let mut out = Vec::new();
    let mut records = 0;
    for (file, text) in DATA {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("{file}: {e}"))?;
        let kind = doc["kind"].as_str().unwrap_or_default().to_string();
        let registry = Arc::new(Registry(
            doc["registry"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| {
                    (
                        gvr(&e["resource"]),
                        e["subresource"].as_str().unwrap_or_default().to_string(),
                        gvk(&e["kind"]),
                    )
                })
                .collect(),
        ));
        let kinds = Arc::new(gvks(&doc["restMapper"]).unwrap_or_default());
        for r in doc["records"]
            .as_array()
            .ok_or(format!("{file}: no records"))?
        {
            records += 1;
            let p = &r["provenance"];
            let case = p["case"].as_str().unwrap_or("?");
            // A file of several Go tests names the test too.
            let mut name = match doc["kind"].as_str() {
                Some("typechecking") => {
                    format!("{kind}/{}/{case}", p["test"].as_str().unwrap_or("?"))
                }
                _ => format!("{kind}/{case}"),
            };
            if let Some(sub) = p["subtest"].as_str() {
                name = format!("{name}/{sub}");
            }
            let skip = is_skipped(&skips, &name);
            let (r, kind, registry, kinds) =
                (r.clone(), kind.clone(), registry.clone(), kinds.clone());
            out.push(
                Trial::test(name, move || {
                    match kind.as_str() {
                        "compile" => run_compile(&r),
                        "matching" => run_matching(&registry, &r),
                        "typechecking" => run_typechecking(&kinds, &r),
                        k => Err(format!("unknown table kind {k:?}")),
                    }
                    .map_err(Into::into)
                })
                .with_ignored_flag(skip),
            );
        }
    }
    Ok((out, records))
}

fn main() -> ExitCode {
    run_tables("admission tables", trials())
}
