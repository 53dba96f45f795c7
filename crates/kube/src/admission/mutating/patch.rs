//! One mutation applied to an object (`patch/json_patch.go`: `jsonPatcher.Patch`,
//! `evaluatePatchExpression`; `patch/smd.go`: `applyConfigPatcher.Patch`), with the server's
//! error texts.

use cel::Value;
use serde_json::Value as Json;

use super::compile::{Compiled, CompiledMutation};
use super::evaluate::Activation;
use super::json_patch::{self, Operation, PatchError};
use super::model::PatchType;
use super::smd;
use super::types::{JsonPatchVal, OBJECT_TYPE, ObjectVal};
use crate::builtins::convert::GoType;
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A policy error (`addConfigError`, reason Invalid): the policy's failure policy decides.
    Policy(String),
    /// A status error that stops the request.
    Status(super::StatusError),
}

/// The largest integer a CEL number keeps when it becomes a `structpb.Value` (a float64).
const FLOAT_EXACT: i64 = 1 << 53;

/// A CEL value as the JSON its `structpb.Value` marshals to: numbers become float64s (written
/// as integers when integral).
fn to_patch_json(v: &Value) -> Result<Json, String> {
    let json = v.to_json().map_err(|e| e.to_string())?;
    Ok(floats(json))
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
fn operations(result: &Value) -> Result<Vec<Operation>, String> {
    let Value::List(list) = result else {
        return Err("type mismatch: JSONPatchType.expression should evaluate to array".into());
    };
    let mut ops = Vec::with_capacity(list.len());
    for v in list.iter() {
        let patch = match &v {
            Value::Opaque(o) => o.as_any().downcast_ref::<JsonPatchVal>(),
            _ => None,
        };
        let Some(p) = patch else {
            return Err(format!(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: cannot convert to native type: {}",
                v.type_name()
            ));
        };
        let value = match &p.value {
            None => None,
            Some(val) => {
                if let Value::Opaque(o) = val
                    && let Some(obj) = o.as_any().downcast_ref::<ObjectVal>()
                {
                    let errors = obj.check_type_names();
                    if !errors.is_empty() {
                        return Err(format!("type mismatch: {}", errors.join("\n")));
                    }
                }
                Some(to_patch_json(val).map_err(|e| {
                    format!("JSONPath valueExpression evaluated to a type that could not marshal to JSON: {e}")
                })?)
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
) -> Result<(), String> {
    crate::builtins::decode::decode(object, go_type)
        .map_err(|e| format!("Internal error occurred: {e}"))?;
    let mut copy = object.clone();
    let mut unknown = crate::pipeline::prune::prune(&mut copy, schema, true);
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort();
    let listed: Vec<String> = unknown
        .iter()
        .map(|p| format!("unknown field {}", cel::go::fmt::quote(p)))
        .collect();
    Err(format!(
        "Internal error occurred: strict decoding error: {}",
        listed.join(", ")
    ))
}

/// Evaluates `compiled` and returns its value, or the patcher's error.
fn evaluate(
    compiled: &Compiled,
    activation: &Activation,
    budget: &mut i64,
) -> Result<Value, Failure> {
    // `CompilationErrors()` come first, as they are.
    if let Err(e) = &compiled.program {
        return Err(Failure::Policy(e.clone()));
    }
    match activation.evaluate(compiled, budget) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) | Err(e) => Err(Failure::Policy(e)),
    }
}

/// Applies `mutation` to `object`: the new object (the same one when a JSON Patch `test`
/// fails).
pub fn apply(
    mutation: &CompiledMutation,
    activation: &Activation,
    object: &Json,
    target: Target<'_>,
    budget: &mut i64,
) -> Result<Json, Failure> {
    match mutation.patch_type {
        PatchType::JsonPatch => {
            let result = evaluate(&mutation.compiled, activation, budget)?;
            let ops = operations(&result).map_err(Failure::Policy)?;
            let mut patched = go_numbers(object.clone());
            match json_patch::apply(&mut patched, &ops) {
                Ok(()) => {}
                Err(PatchError::TestFailed { .. }) => return Ok(object.clone()),
                Err(e) => {
                    return Err(Failure::Policy(format!("JSON Patch: {e}")));
                }
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
            let result = evaluate(&mutation.compiled, activation, budget)?;
            let obj = match &result {
                Value::Opaque(o) => o.as_any().downcast_ref::<ObjectVal>(),
                _ => None,
            };
            let Some(obj) = obj.filter(|o| o.type_name == OBJECT_TYPE) else {
                return Err(Failure::Policy(format!(
                    "unsupported return type from ApplyConfiguration expression: {}",
                    result.type_name()
                )));
            };
            let errors = obj.check_type_names();
            if !errors.is_empty() {
                return Err(Failure::Policy(format!(
                    "type mismatch: {}",
                    errors.join("\n")
                )));
            }
            // `ObjectVal.Value()`: native values (int64 stays int64, unlike JSON Patch values).
            let mut patch = obj
                .to_json_object()
                .map_err(|e| Failure::Policy(format!("invalid return type: {e}")))?;
            if let Json::Object(p) = &mut patch {
                for key in ["apiVersion", "kind"] {
                    match object.get(key) {
                        Some(v) => p.insert(key.to_string(), v.clone()),
                        None => p.remove(key),
                    };
                }
            }
            smd::apply(schema, object, &patch)
                .map_err(|e| Failure::Policy(format!("error applying patch: {e}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::mutating::CompiledPolicy;
    use crate::admission::mutating::evaluate::Bindings;
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
                object: object.clone(),
                ..Bindings::default()
            };
            let activation = Activation::new(&compiled, &bindings);
            let mut budget = i64::MAX;
            apply(
                &compiled.mutations[0],
                &activation,
                &object,
                target,
                &mut budget,
            )
        };
        let wrong_type = run(r#"[JSONPatch{op: "add", path: "/spec/replicas", value: "x"}]"#);
        assert_eq!(
            wrong_type,
            Err(Failure::Policy(
                "Internal error occurred: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32".into()
            ))
        );
        let unknown = run(r#"[JSONPatch{op: "add", path: "/spec/zz", value: 1}]"#);
        assert_eq!(
            unknown,
            Err(Failure::Policy(
                "Internal error occurred: strict decoding error: unknown field \"spec.zz\"".into()
            ))
        );
    }
}
