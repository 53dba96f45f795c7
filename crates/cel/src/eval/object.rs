//! Object construction `T{f: v, ?g: w}`: planned against the environment's
//! type provider, built by it (cel-go's `evalObj` in
//! `interpreter/interpretable.go`, charged `StructCreateBaseCost` as in
//! `interpreter/runtimecost.go`).

use std::sync::Arc;

use super::Plan;
use super::interp::{Ctx, entry_value};
use super::node::Node;
use super::planner::{PResult, Planner};
use crate::checker::TypeProvider;
use crate::checker::names::{Types, resolve_candidates};
use crate::error::{EvalError, EvalResult};
use crate::syntax::{ExprId, Struct};
use crate::value::Value;

/// cel-go's `common.StructCreateBaseCost`.
const STRUCT_CREATE_COST: u64 = 40;

/// A message construction.
pub(crate) struct ObjectNode {
    pub id: ExprId,
    pub provider: Arc<dyn TypeProvider>,
    /// The fully qualified type name.
    pub type_name: Arc<str>,
    /// (field name, value, `?f` optional entry), in source order.
    pub fields: Vec<(Arc<str>, Node, bool)>,
}

impl Planner<'_> {
    /// Plans `T{...}`: the type name as the checker resolved it, or (unchecked)
    /// the first container candidate the provider knows.
    pub(super) fn plan_struct(&mut self, id: ExprId, s: &Struct) -> PResult {
        let unknown = || (id, format!("unknown type: {}", s.type_name));
        let Some(provider) = self.env.shared_type_provider() else {
            return Err(unknown());
        };
        let type_name = if self.checked.is_some() {
            s.type_name.to_string()
        } else {
            let types = Types {
                provider: Some(&*provider),
            };
            let container = &self.env.options().container;
            resolve_candidates(container, &s.type_name, |c| {
                types.find_type(c).map(|_| c.to_string())
            })
            .ok_or_else(unknown)?
        };
        let mut fields = Vec::with_capacity(s.fields.len());
        for f in &s.fields {
            fields.push((Arc::from(f.name.as_str()), self.plan(&f.value)?, f.optional));
        }
        Ok(Node::Object(Box::new(ObjectNode {
            id,
            provider,
            type_name: type_name.into(),
            fields,
        })))
    }
}

impl Plan {
    #[inline(never)]
    pub(super) fn eval_object<const T: bool>(
        &self,
        o: &ObjectNode,
        cx: &mut Ctx<'_>,
    ) -> EvalResult {
        cx.check_size(o.fields.len())?;
        let mut values: Vec<(&str, Value)> = Vec::with_capacity(o.fields.len());
        for (name, node, optional) in &o.fields {
            let v = self.eval_node::<T>(node, cx)?;
            let Some(v) = entry_value(v, *optional).map_err(|e| e.at(o.id))? else {
                continue;
            };
            values.push((name, v));
        }
        let r = match o.provider.new_object(&o.type_name, &values) {
            Some(r) => r.map_err(|e| e.at(o.id)),
            None => Err(EvalError::msg(format!("unknown type: {}", o.type_name)).at(o.id)),
        };
        abort_on!(r);
        cx.charge::<T>(STRUCT_CREATE_COST)?;
        r
    }
}
