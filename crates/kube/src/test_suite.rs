//! Declarative CRD test suites: the `*.testsuite.yaml` format of openshift/api
//! (`tests/<group>/<version>/*.testsuite.yaml`, run by its `tests` generator), run through a
//! [`Validator`].
//!
//! A suite names the CRD it tests (`crdName`, else the CRD defining each object's kind) and holds
//! `tests.onCreate` and `tests.onUpdate`: each test an `initial` object (YAML text or an object)
//! and, for updates, the `updated` object; expected either an error containing
//! `expectedError` (and `expectedStatusError` for the status subresource), or acceptance, with
//! the stored object equal to `expected` up to `metadata`. An update test may patch the CRD for
//! writing its initial object (`initialCRDPatches`, RFC 6902), to test ratcheting. A suite whose
//! `featureGates` needs gates enabled (`Name`) or disabled (`-Name`) otherwise than given is
//! skipped with the reason.
//!
//! Requests are sent as `kubectl apply` sends them: strict field validation (the caller builds
//! the [`Validator`] so), objects without a name named `test`, update objects given the stored
//! object's name, namespace, `resourceVersion`, `uid` and `generation` when they lack them.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

use crate::crd::CustomResourceDefinition;
use crate::pipeline::{FieldValidation, Operation, StoredObject};
use crate::{CrdId, Request, Validator};

/// The two lists of tests of a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `tests.onCreate`.
    OnCreate,
    /// `tests.onUpdate`.
    OnUpdate,
}

impl Phase {
    /// The suite's key: `onCreate` or `onUpdate`.
    pub fn key(self) -> &'static str {
        match self {
            Phase::OnCreate => "onCreate",
            Phase::OnUpdate => "onUpdate",
        }
    }
}

/// What one test of a suite gave.
#[derive(Debug)]
pub struct TestOutcome {
    /// The list the test is in.
    pub phase: Phase,
    /// The test's `name`.
    pub name: String,
    /// Passed, failed (why) or skipped (why).
    pub result: TestResult,
}

/// The verdict on one test.
#[derive(Debug)]
pub enum TestResult {
    /// The server's answer is the expected one.
    Passed,
    /// It is not, or the test could not be run.
    Failed(TestFailure),
    /// The suite does not run with the given feature gates.
    Skipped(GateMismatch),
}

/// Why a test failed. `Display` gives the line `kcel test` prints.
#[derive(Debug, thiserror::Error)]
pub enum TestFailure {
    /// The error does not contain the expected text.
    #[error("error {got:?} does not contain {want:?}")]
    WrongError {
        /// The server's message.
        got: String,
        /// The text it should contain.
        want: String,
    },
    /// The request was accepted where an error was expected.
    #[error("accepted, want an error containing {want:?}")]
    Accepted {
        /// The text the error should contain.
        want: String,
    },
    /// The request was rejected where acceptance was expected.
    #[error("rejected: {0}")]
    Rejected(String),
    /// The stored object is not the expected one (compared without `metadata`).
    #[error(
        "object differs:\n  got:  {}\n  want: {}",
        crate::field::go_json(got),
        crate::field::go_json(want)
    )]
    ObjectDiffers {
        /// The stored object without `metadata`.
        got: Box<Value>,
        /// The expected object without `metadata`.
        want: Box<Value>,
    },
    /// The initial object of an update test was rejected.
    #[error("initial object rejected: {0}")]
    InitialRejected(String),
    /// Writing the initial object's status was rejected.
    #[error("initial status rejected: {0}")]
    InitialStatusRejected(String),
    /// The test itself is not well-formed, or names no CRD the validator has.
    #[error(transparent)]
    Suite(#[from] SuiteError),
    /// The validator could not take the request.
    #[error(transparent)]
    Validation(#[from] crate::Error),
}

/// A suite or test that cannot be run as written.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// A test lacks a required object (`initial`, or `updated` in an update test).
    #[error("{0}")]
    Missing(&'static str),
    /// A YAML text field does not parse.
    #[error("{field}: {error}")]
    Yaml {
        /// The test's field (`initial`, `updated`, `expected`).
        field: &'static str,
        /// Why it does not parse.
        error: crate::yaml::YamlError,
    },
    /// `crdName` names no CRD of the validator.
    #[error("no --crd named {0:?}")]
    NoCrdNamed(String),
    /// No CRD of the validator defines the object's kind.
    #[error("no --crd defines the object's kind")]
    NoCrdForKind,
    /// `initialCRDPatches` is not an RFC 6902 patch.
    #[error("initialCRDPatches: {0}")]
    PatchFormat(serde_json::Error),
    /// `initialCRDPatches` does not apply to the CRD.
    #[error("initialCRDPatches: {0}")]
    PatchFailed(json_patch::PatchError),
    /// The patched CRD is not a CRD.
    #[error("patched CRD: {0}")]
    PatchedCrd(serde_json::Error),
}

/// Feature gates a suite needs otherwise than they are given. `Display` gives the skip reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GateMismatch {
    /// The suite needs `Name` enabled.
    #[error("the suite needs feature gate {0}, which is not enabled (--feature-gate {0})")]
    NotEnabled(String),
    /// The suite needs `-Name` (disabled), and it is enabled.
    #[error("the suite needs feature gate {0} disabled, but it is enabled")]
    Enabled(String),
}

/// Runs every test of `suite` against the CRDs of `validator` (built with strict field
/// validation, as `kubectl apply` sends), sending requests to `namespace` (`kubectl -n`; default
/// each object's own, else `default`), with the feature gates `gates` enabled.
pub fn run_suite(
    suite: &Value,
    validator: &Validator,
    namespace: Option<&str>,
    gates: &BTreeSet<String>,
) -> Vec<TestOutcome> {
    let skip = gate_mismatch(suite, gates);
    let mut out = Vec::new();
    for phase in [Phase::OnCreate, Phase::OnUpdate] {
        let tests = suite
            .get("tests")
            .and_then(|t| t.get(phase.key()))
            .and_then(Value::as_array);
        for t in tests.into_iter().flatten() {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            let result = match &skip {
                Some(g) => TestResult::Skipped(g.clone()),
                None => match run_test(suite, t, phase, validator, namespace) {
                    Ok(()) => TestResult::Passed,
                    Err(e) => TestResult::Failed(e),
                },
            };
            out.push(TestOutcome {
                phase,
                name: name.to_string(),
                result,
            });
        }
    }
    out
}

/// The gate a suite's `featureGates` needs otherwise than `enabled`, if any.
fn gate_mismatch(suite: &Value, enabled: &BTreeSet<String>) -> Option<GateMismatch> {
    let gates = suite.get("featureGates").and_then(Value::as_array)?;
    gates
        .iter()
        .filter_map(Value::as_str)
        .find_map(|g| match g.strip_prefix('-') {
            Some(name) if enabled.contains(name) => Some(GateMismatch::Enabled(name.to_string())),
            None if !enabled.contains(g) => Some(GateMismatch::NotEnabled(g.to_string())),
            _ => None,
        })
}

/// What applying one request gave: the object as stored, or the failure's message.
struct Applied {
    object: Option<Value>,
    message: Option<String>,
}

/// One CRD of a validator, and the namespace requests go to.
#[derive(Clone, Copy)]
struct Target<'v> {
    validator: &'v Validator,
    crd: CrdId,
    namespace: Option<&'v str>,
}

impl Target<'_> {
    fn crd(&self) -> Result<&CustomResourceDefinition, SuiteError> {
        self.validator.crd(self.crd).ok_or(SuiteError::NoCrdForKind)
    }

    fn apply(&self, obj: Value, operation: Operation) -> Result<Applied, TestFailure> {
        let request = Request::new(with_name(obj), operation)
            .in_namespace(self.namespace.map(str::to_string))
            .against_crd(self.crd);
        let r = self.validator.validate(request)?;
        let failed = !r.is_valid();
        Ok(Applied {
            object: r.object.map(StoredObject::into_value),
            message: failed.then_some(r.status.message),
        })
    }
}

fn run_test(
    suite: &Value,
    test: &Value,
    phase: Phase,
    validator: &Validator,
    namespace: Option<&str>,
) -> Result<(), TestFailure> {
    let initial =
        object_field(test, "initial")?.ok_or(SuiteError::Missing("test without `initial`"))?;
    let target = Target {
        validator,
        crd: find_crd(suite, &initial, validator)?,
        namespace,
    };
    if phase == Phase::OnCreate {
        let out = target.apply(initial, Operation::Create)?;
        return check(&out, test, "expectedError");
    }
    // The initial object may be written under a patched CRD; the update meets the real one.
    let old = match test.get("initialCRDPatches").filter(|p| !p.is_null()) {
        Some(patches) => {
            let mut builder = Validator::builder()
                .kube_version(validator.kube_version())
                .field_validation(FieldValidation::Strict);
            let crd = builder.add_crd(patched_crd(target.crd()?, patches)?, None);
            let patched = builder.build();
            create_initial(
                Target {
                    validator: &patched,
                    crd,
                    namespace,
                },
                initial,
            )?
        }
        None => create_initial(target, initial)?,
    };
    let updated = object_field(test, "updated")?
        .ok_or(SuiteError::Missing("update test without `updated`"))?;
    let mut updated = with_name(updated);
    if let (Value::Object(u), Some(Value::Object(om))) = (&mut updated, old.get("metadata"))
        && let Some(Value::Object(um)) = u.get_mut("metadata")
    {
        for k in ["name", "namespace", "resourceVersion", "uid", "generation"] {
            if let Some(x) = om.get(k) {
                um.entry(k.to_string()).or_insert_with(|| x.clone());
            }
        }
    }
    let spec = target.apply(updated.clone(), Operation::Update(old.clone()))?;
    check(&spec, test, "expectedError")?;
    if test.get("expectedStatusError").is_some() {
        let status = target.apply(updated, Operation::UpdateStatus(old))?;
        check(&status, test, "expectedStatusError")?;
    }
    Ok(())
}

/// Whether `outcome` is what `test` expects (`error_key`: the expected error's field).
fn check(outcome: &Applied, test: &Value, error_key: &str) -> Result<(), TestFailure> {
    if let Some(want) = test.get(error_key).and_then(Value::as_str) {
        return match &outcome.message {
            Some(m) if m.contains(want) => Ok(()),
            Some(m) => Err(TestFailure::WrongError {
                got: m.clone(),
                want: want.to_string(),
            }),
            None => Err(TestFailure::Accepted {
                want: want.to_string(),
            }),
        };
    }
    if let Some(m) = &outcome.message {
        return Err(TestFailure::Rejected(m.clone()));
    }
    if let Some(want) = object_field(test, "expected")? {
        let got = outcome
            .object
            .as_ref()
            .map(without_metadata)
            .unwrap_or(Value::Null);
        let want = without_metadata(&want);
        if got != want {
            return Err(TestFailure::ObjectDiffers {
                got: Box::new(got),
                want: Box::new(want),
            });
        }
    }
    Ok(())
}

/// Creates the initial object of an update test, then (like the openshift suite) writes its
/// `status` through the status subresource when the CRD has one.
fn create_initial(target: Target<'_>, initial: Value) -> Result<Value, TestFailure> {
    let status = initial.get("status").cloned();
    let created = target.apply(initial.clone(), Operation::Create)?;
    if let Some(m) = created.message {
        return Err(TestFailure::InitialRejected(m));
    }
    let stored = created
        .object
        .ok_or_else(|| TestFailure::InitialRejected("not stored".into()))?;
    let has_status = target
        .crd()?
        .version(&version_of(&initial))
        .is_some_and(|v| v.has_status_subresource());
    let Some(status) = status.filter(|_| has_status) else {
        return Ok(stored);
    };
    let mut with_status = stored.clone();
    if let Value::Object(o) = &mut with_status {
        o.insert("status".into(), status);
    }
    let written = target.apply(with_status, Operation::UpdateStatus(stored))?;
    if let Some(m) = written.message {
        return Err(TestFailure::InitialStatusRejected(m));
    }
    written
        .object
        .ok_or_else(|| TestFailure::InitialStatusRejected("not stored".into()))
}

/// A test's field as an object: YAML text (the suites' form) or an object.
fn object_field(test: &Value, key: &'static str) -> Result<Option<Value>, SuiteError> {
    match test.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => crate::yaml::parse_stream(text)
            .map_err(|error| SuiteError::Yaml { field: key, error })
            .map(|d| d.into_iter().next().map(|d| d.value)),
        Some(other) => Ok(Some(other.clone())),
    }
}

/// The CRD a suite tests: the one named `crdName`, else the one defining the object's kind.
fn find_crd(suite: &Value, obj: &Value, validator: &Validator) -> Result<CrdId, SuiteError> {
    if let Some(name) = suite.get("crdName").and_then(Value::as_str) {
        return validator
            .crd_ids()
            .find(|&id| validator.crd(id).is_some_and(|c| c.metadata.name == name))
            .ok_or_else(|| SuiteError::NoCrdNamed(name.to_string()));
    }
    let s = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("");
    validator
        .find_kind(s("apiVersion"), s("kind"))
        .ok_or(SuiteError::NoCrdForKind)
}

/// The version of `apiVersion` (`group/version`).
fn version_of(obj: &Value) -> String {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    api_version
        .rsplit_once('/')
        .map_or(api_version, |(_, v)| v)
        .to_string()
}

/// Gives an object a name when it has none (suites leave names out).
fn with_name(mut obj: Value) -> Value {
    if let Value::Object(o) = &mut obj {
        let meta = o
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta
            && !m.contains_key("name")
            && !m.contains_key("generateName")
        {
            m.insert("name".into(), Value::String("test".into()));
        }
    }
    obj
}

/// The object without `metadata` (what suites compare).
fn without_metadata(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(o) = &mut v {
        o.shift_remove("metadata");
    }
    v
}

/// The CRD with an RFC 6902 JSON patch applied (paths as in the CRD's YAML).
fn patched_crd(
    crd: &CustomResourceDefinition,
    patches: &Value,
) -> Result<CustomResourceDefinition, SuiteError> {
    let patch: json_patch::Patch =
        serde_json::from_value(patches.clone()).map_err(SuiteError::PatchFormat)?;
    let mut doc = serde_json::to_value(crd).map_err(SuiteError::PatchedCrd)?;
    json_patch::patch(&mut doc, &patch).map_err(SuiteError::PatchFailed)?;
    serde_json::from_value(doc).map_err(SuiteError::PatchedCrd)
}

impl fmt::Display for TestResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TestResult::Passed => f.write_str("pass"),
            TestResult::Failed(_) => f.write_str("fail"),
            TestResult::Skipped(_) => f.write_str("skip"),
        }
    }
}

impl TestResult {
    /// Why the test failed or was skipped.
    pub fn reason(&self) -> Option<String> {
        match self {
            TestResult::Passed => None,
            TestResult::Failed(e) => Some(e.to_string()),
            TestResult::Skipped(g) => Some(g.to_string()),
        }
    }
}
