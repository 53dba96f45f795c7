//! One mutation applied to an object (`patch/json_patch.go`: `jsonPatcher.Patch`,
//! `evaluatePatchExpression`; `patch/smd.go`: `applyConfigPatcher.Patch`), with the server's
//! error texts.

use std::sync::Arc;

use cel::{EvalError, Value};
use serde_json::Value as Json;

use super::compile::CompiledMutation;
use super::json_patch::{self, Operation, PatchError};
use super::model::PatchType;
use super::smd::{self, ApplyError};
use super::types::{JsonPatchVal, OBJECT_TYPE, ObjectVal};
use crate::admission::environment::CompileError;
use crate::admission::evaluate::{
    Bindings, EvaluationError, Expression, OutOfBudget, Outcome, Variable, evaluate_one,
};
use crate::builtins::convert::GoType;
use crate::builtins::decode::DecodeError;
use crate::schema_props::JsonSchemaProps;

/// What the patchers need to know of the object's kind.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The kind's schema (the type converter's source): ApplyConfiguration needs it; without
    /// one the dispatcher answers `Resource kind ... not found`.
    pub schema: Option<&'a JsonSchemaProps>,
    /// A built-in kind's Go type: a JSON-patched object is decoded strictly into it
    /// (`jsonSerializer.Decode`), so values of the wrong type (`json: cannot unmarshal ...`)
    /// and members its schema lacks (`strict decoding error: unknown field ...`) are errors.
    pub go_type: Option<&'a GoType>,
}

/// Why a mutation failed.
#[derive(Clone, Debug)]
pub enum Failure {
    /// A policy error (`addConfigError`, reason Invalid): the policy's failure policy decides.
    Policy(MutationError),
    /// A status error that stops the request.
    Status(super::StatusError),
}

/// A policy's error while mutating, with the texts of the patchers
/// (`mutating/patch/json_patch.go`, `patch/smd.go`) and of the match conditions
/// (`matchconditions.Matcher.Match`).
#[derive(Clone, Debug, thiserror::Error)]
pub enum MutationError {
    /// The expression did not compile (`CompilationErrors()`, as they are).
    #[error("{0}")]
    Compilation(CompileError),
    /// The expression failed at run time.
    #[error(transparent)]
    Evaluation(EvaluationError),
    /// The evaluations ran out of their budget (`ErrOutOfBudget`).
    #[error(transparent)]
    OutOfBudget(OutOfBudget),
    /// Match conditions that failed to evaluate (`utilerrors.NewAggregate`).
    #[error("{}", aggregate(.0))]
    MatchConditions(Vec<EvaluationError>),
    /// A JSON Patch expression that is not a list.
    #[error("type mismatch: JSONPatchType.expression should evaluate to array")]
    NotAList,
    /// A JSON Patch list member that is not a `JSONPatch`, by its type name.
    #[error(
        "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: cannot convert to native type: {0}"
    )]
    NotAJsonPatch(String),
    /// `Object` type names that do not follow their field paths
    /// (`CheckTypeNamesMatchFieldPathNames`), one message each.
    #[error("type mismatch: {}", .0.join("\n"))]
    TypeNames(Vec<String>),
    /// A JSON Patch value that does not convert to JSON.
    #[error("JSONPath valueExpression evaluated to a type that could not marshal to JSON: {0}")]
    Marshal(EvalError),
    /// The patch does not apply.
    #[error("JSON Patch: {0}")]
    JsonPatch(PatchError),
    /// A built-in kind's patched object does not decode into its Go type
    /// (`NewInternalError` of the decoder's error).
    #[error("Internal error occurred: {0}")]
    Decode(DecodeError),
    /// A built-in kind's patched object has members its Go type lacks (strict decoding), by
    /// path, sorted.
    #[error("Internal error occurred: strict decoding error: {}", unknown_fields(.0))]
    UnknownFields(Vec<String>),
    /// An ApplyConfiguration expression that is not an `Object`, by its type name.
    #[error("unsupported return type from ApplyConfiguration expression: {0}")]
    ReturnType(String),
    /// An `Object` value that does not convert to JSON.
    #[error("invalid return type: {0}")]
    InvalidReturnType(EvalError),
    /// The apply configuration does not merge.
    #[error("error applying patch: {0}")]
    Apply(ApplyError),
}

/// `aggregate.Error()` (`apimachinery/pkg/util/errors`): one error as it is, several in
/// brackets, each text once.
fn aggregate(errors: &[EvaluationError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errors {
        let text = e.to_string();
        if !seen.contains(&text) {
            seen.push(text);
        }
    }
    match seen.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", seen.join(", ")),
    }
}

fn unknown_fields(paths: &[String]) -> String {
    paths
        .iter()
        .map(|p| format!("unknown field {}", cel::go::fmt::quote(p)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The largest integer a CEL number keeps when it becomes a `structpb.Value` (a float64).
const FLOAT_EXACT: i64 = 1 << 53;

/// A CEL value as the JSON its `structpb.Value` marshals to: numbers become float64s (written
/// as integers when integral).
fn to_patch_json(v: &Value) -> Result<Json, EvalError> {
    Ok(floats(v.to_json()?))
}

fn floats(j: Json) -> Json {
    match j {
        Json::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < FLOAT_EXACT as f64 {
                Json::from(f as i64)
            } else {
                serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number)
            }
        }
        Json::Array(a) => Json::Array(a.into_iter().map(floats).collect()),
        Json::Object(o) => Json::Object(o.into_iter().map(|(k, v)| (k, floats(v))).collect()),
        other => other,
    }
}

/// A document's numbers as Go's encoder writes the object the patch applies to
/// (`runtime.Encode`): integers as they are, whole floats below 1e21 without a fraction.
fn go_numbers(j: Json) -> Json {
    match j {
        Json::Number(n) if !n.is_i64() && !n.is_u64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 1e21 && f.abs() < i64::MAX as f64 {
                Json::from(f as i64)
            } else {
                Json::Number(n)
            }
        }
        Json::Array(a) => Json::Array(a.into_iter().map(go_numbers).collect()),
        Json::Object(o) => Json::Object(o.into_iter().map(|(k, v)| (k, go_numbers(v))).collect()),
        other => other,
    }
}

/// `evaluatePatchExpression`'s conversion of the expression's list into operations.
fn operations(result: &Value) -> Result<Vec<Operation>, MutationError> {
    let Value::List(list) = result else {
        return Err(MutationError::NotAList);
    };
    let mut ops = Vec::with_capacity(list.len());
    for v in list.iter() {
        let patch = match &v {
            Value::Opaque(o) => o.as_any().downcast_ref::<JsonPatchVal>(),
            _ => None,
        };
        let Some(p) = patch else {
            return Err(MutationError::NotAJsonPatch(v.type_name().to_string()));
        };
        let value = match &p.value {
            None => None,
            Some(val) => {
                if let Value::Opaque(o) = val
                    && let Some(obj) = o.as_any().downcast_ref::<ObjectVal>()
                {
                    let errors = obj.check_type_names();
                    if !errors.is_empty() {
                        return Err(MutationError::TypeNames(errors));
                    }
                }
                Some(to_patch_json(val).map_err(MutationError::Marshal)?)
            }
        };
        ops.push(Operation {
            op: p.op.clone(),
            path: p.path.clone(),
            from: (!p.from.is_empty()).then(|| p.from.clone()),
            value,
        });
    }
    Ok(ops)
}

/// The strict typed decoding of a built-in kind's patched object (`jsonSerializer.Decode`,
/// its error wrapped by `NewInternalError`): the decoder's error, else the unknown members.
fn strict_decoding(
    object: &Json,
    schema: &JsonSchemaProps,
    go_type: &GoType,
) -> Result<(), MutationError> {
    crate::builtins::decode::decode(object, go_type).map_err(MutationError::Decode)?;
    let mut unknown = crate::pipeline::prune::unknown_fields(object, schema, true);
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort();
    Err(MutationError::UnknownFields(unknown))
}

/// Evaluates `expression` (alone, with its own variables) and returns its value, or the
/// patcher's error.
fn evaluate(
    expression: &Expression,
    variables: &Arc<[Variable]>,
    bindings: &Bindings,
    budget: &mut i64,
) -> Result<Value, MutationError> {
    // `CompilationErrors()` come first, as they are.
    if let Err(e) = &expression.compiled {
        return Err(MutationError::Compilation(e.clone()));
    }
    match evaluate_one(expression, variables, bindings, budget) {
        Ok(Outcome::Value(v)) => Ok(v),
        Ok(Outcome::Error(e)) => Err(MutationError::Evaluation(e)),
        Ok(Outcome::Absent) => Ok(Value::Null),
        Err(e) => Err(MutationError::OutOfBudget(e)),
    }
}

/// Applies `mutation` to `object` (bound as `object` in `bindings`), with the policy's
/// `variables`: the new object (the same one when a JSON Patch `test` fails).
pub fn apply(
    mutation: &CompiledMutation,
    variables: &Arc<[Variable]>,
    bindings: &Bindings,
    object: &Json,
    target: Target<'_>,
    budget: &mut i64,
) -> Result<Json, Failure> {
    let evaluate = |budget: &mut i64| {
        evaluate(&mutation.expression, variables, bindings, budget).map_err(Failure::Policy)
    };
    match mutation.patch_type {
        PatchType::JsonPatch => {
            let result = evaluate(budget)?;
            let ops = operations(&result).map_err(Failure::Policy)?;
            let mut patched = go_numbers(object.clone());
            match json_patch::apply(&mut patched, &ops) {
                Ok(()) => {}
                Err(PatchError::TestFailed { .. }) => return Ok(object.clone()),
                Err(e) => return Err(Failure::Policy(MutationError::JsonPatch(e))),
            }
            if let (Some(schema), Some(go_type)) = (target.schema, target.go_type) {
                strict_decoding(&patched, schema, go_type).map_err(Failure::Policy)?;
            }
            Ok(patched)
        }
        PatchType::ApplyConfiguration => {
            let Some(schema) = target.schema else {
                return Err(Failure::Status(super::StatusError::kind_not_found(object)));
            };
            let result = evaluate(budget)?;
            let obj = match &result {
                Value::Opaque(o) => o.as_any().downcast_ref::<ObjectVal>(),
                _ => None,
            };
            let Some(obj) = obj.filter(|o| o.type_name == OBJECT_TYPE) else {
                return Err(Failure::Policy(MutationError::ReturnType(
                    result.type_name().to_string(),
                )));
            };
            let errors = obj.check_type_names();
            if !errors.is_empty() {
                return Err(Failure::Policy(MutationError::TypeNames(errors)));
            }
            // `ObjectVal.Value()`: native values (int64 stays int64, unlike JSON Patch values).
            let mut patch = obj
                .to_json_object()
                .map_err(|e| Failure::Policy(MutationError::InvalidReturnType(e)))?;
            if let Json::Object(p) = &mut patch {
                for key in ["apiVersion", "kind"] {
                    match object.get(key) {
                        Some(v) => p.insert(key.to_string(), v.clone()),
                        None => p.remove(key),
                    };
                }
            }
            smd::apply(schema, object, &patch).map_err(|e| Failure::Policy(MutationError::Apply(e)))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::mutating::CompiledPolicy;
    use crate::builtins::Builtins;
    use crate::version::KubeVersion;

    #[test]
    fn built_in_kinds_decode_strictly_after_a_json_patch() {
        let builtins = Builtins::new(KubeVersion::NEWEST, true);
        let kind = builtins.kind("apps/v1", "Deployment").unwrap().unwrap();
        let schema = kind.crd.spec.versions[0].open_api_v3_schema().unwrap();
        let target = Target {
            schema: Some(schema),
            go_type: Some(&kind.go_type),
        };
        let run = |expression: &str| {
            let doc = json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingAdmissionPolicy",
                "metadata": {"name": "p"},
                "spec": {"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}]},
            });
            let policy = serde_json::from_value(doc).unwrap();
            let compiled = CompiledPolicy::compile(&policy, KubeVersion::NEWEST);
            let object =
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}, "spec": {}});
            let bindings = Bindings {
                object: Value::from_json(&object),
                old_object: Value::Null,
                request: Value::Null,
                namespace: Value::Null,
                params: Value::Null,
                authorizer: None,
            };
            let mut budget = i64::MAX;
            apply(
                &compiled.mutations[0],
                &compiled.variables,
                &bindings,
                &object,
                target,
                &mut budget,
            )
            .map_err(|e| match e {
                Failure::Policy(e) => e.to_string(),
                Failure::Status(s) => format!("status {s}"),
            })
        };
        let wrong_type = run(r#"[JSONPatch{op: "add", path: "/spec/replicas", value: "x"}]"#);
        assert_eq!(
            wrong_type,
            Err(
                "Internal error occurred: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32".into()
            )
        );
        let unknown = run(r#"[JSONPatch{op: "add", path: "/spec/zz", value: 1}]"#);
        assert_eq!(
            unknown,
            Err("Internal error occurred: strict decoding error: unknown field \"spec.zz\"".into())
        );
    }
}
