//! Validating a whole set of inputs as a CI gate does: every document of every file gets a
//! [`Record`] in a [`Report`], and nothing unreadable or unvalidatable passes silently.
//!
//! [`run`] reads the `--crd` paths, the stored objects of `--old` and the inputs without
//! stopping at a bad file ([`crate::documents::read_inputs`], files parsed on the run's
//! threads); reviews every CRD found as kube-apiserver reviews a CRD being created
//! (`crds.rs`); then validates each other document against the CRD serving it, on up to
//! [`GateOptions::jobs`] threads, file by file as the files are read, with the records in input
//! order ([`mod@stream`]; [`stream()`] hands each record on as soon as it is known). Errors (exit code 2 of [`Report::exit_code`]):
//!
//! - a path, file or document that cannot be read: not found, not UTF-8, too large, a YAML or
//!   JSON syntax error, a document that is not an object;
//! - a document without `kind` or `apiVersion` (apimachinery's `Object 'Kind' is missing`,
//!   `runtime/error.go`);
//! - a CRD that does not decode, that kube-apiserver would reject, or that differs from an
//!   earlier CRD of the same `metadata.name`;
//! - an object no CRD serves ([`crate::Error::NoMatchingCrd`]), unless
//!   [`GateOptions::ignore_missing_schemas`] (then skipped), or whose CRD is one of the above;
//! - an object of a kind matching [`GateOptions::reject_kinds`] (kubeconform's
//!   `prohibited resource kind`).
//!
//! Objects matching [`GateOptions::skip_kinds`] are skipped before anything else is checked
//! (as kubeconform skips before it rejects). Empty documents are not records.

mod crds;
pub mod kinds;
pub mod parallel;
pub mod stream;

use std::collections::{HashMap, VecDeque};
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::admission;
use crate::admission::request::Operation;
use crate::admission::{PolicySet, RequestOptions};
use crate::crd::CRD_KIND;
use crate::documents::{
    Document, DocumentError, Input, ObjectKey, input_files, parse_file, read_file, read_text,
    str_at,
};
use crate::error::Error;
use crate::field::FieldError;
use crate::pipeline::StoredObject;
use crate::pipeline::status::Status;
use crate::report::{Outcome, Record, Report};
use crate::validator::{Request, Validator, ValidatorBuilder, Verdict};
use crate::values::JsonBody;

pub use kinds::KindPatterns;

/// The paths a run reads.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Files or directories of CRDs (`--crd`); their other documents are ignored.
    pub crds: Vec<String>,
    /// Files or directories (or `-`) of documents to validate; CRDs among them are used too.
    pub documents: Vec<String>,
    /// A file of the objects as stored before (validates as updates: matched by apiVersion,
    /// kind, namespace and name).
    pub old: Option<String>,
    /// Files or directories of admission policies, bindings, params and Namespaces
    /// (`--policy`); their documents are not validated themselves. Policies among the
    /// documents count too.
    pub policies: Vec<String>,
    /// Files or directories of objects to delete (`--delete`): each is the stored object of a
    /// DELETE request, which only admission policies answer.
    pub delete: Vec<String>,
}

/// How a run validates.
#[derive(Clone, Debug)]
pub struct GateOptions {
    /// Kinds not validated (skipped).
    pub skip_kinds: KindPatterns,
    /// Kinds refused (errors).
    pub reject_kinds: KindPatterns,
    /// Skip objects no CRD serves instead of reporting them as errors.
    pub ignore_missing_schemas: bool,
    /// The request namespace (`kubectl -n`).
    pub namespace: Option<String>,
    /// How many threads validate.
    pub jobs: NonZeroUsize,
    /// Who writes the objects, for admission policies.
    pub admission: RequestOptions,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            skip_kinds: KindPatterns::default(),
            reject_kinds: KindPatterns::default(),
            ignore_missing_schemas: false,
            namespace: None,
            jobs: NonZeroUsize::MIN,
            admission: RequestOptions::default(),
        }
    }
}

/// How far a run is, for a progress display on another thread.
#[derive(Debug, Default)]
pub struct Progress {
    /// Documents to validate, known once the inputs are read.
    pub total: AtomicUsize,
    /// Documents validated so far.
    pub done: AtomicUsize,
}

/// Reads `inputs`, reviews their CRDs, adds the usable ones to `validator` (which brings the
/// Kubernetes version, field validation and whatever else the caller configured) and validates
/// every document. `progress`, if given, counts the documents as they are validated.
pub fn run(
    validator: ValidatorBuilder,
    options: &GateOptions,
    inputs: &Inputs,
    progress: Option<&Progress>,
) -> Report {
    let mut records = Vec::new();
    let notices = stream(validator, options, inputs, progress, &mut |r| {
        records.push(r);
        ControlFlow::Continue(())
    });
    Report { records, notices }
}

/// [`run`], each record given to `emit` in the report's order as soon as it and every record
/// before it are known; returns the run's notices. `emit` breaking stops the run (no further
/// record is made).
///
/// The inputs are read twice: a first pass reads every input file's text and parses only
/// those that may hold a CRD or an admission document (their text names
/// `CustomResourceDefinition` or `admissionregistration.k8s.io`, or has a backslash, which may
/// escape a character of either in a quoted string); the second pass streams the files through
/// [`stream::ordered_stream`], each document validated as its file is read, at most
/// [`stream::window`] files held at a time. Standard input is read once and held. When some
/// input is an admission document, the policies need every object among the inputs before any
/// is validated (params, namespaces), and every file is parsed in the first pass and held.
pub fn stream(
    validator: ValidatorBuilder,
    options: &GateOptions,
    inputs: &Inputs,
    progress: Option<&Progress>,
    emit: &mut (dyn FnMut(Record) -> ControlFlow<()> + Send),
) -> Vec<String> {
    let read = |paths: &[String]| read_inputs_on(paths, options.jobs);
    let crd_inputs = read(&inputs.crds);
    let policy_inputs = read(&inputs.policies);
    // `--delete` files are streamed after the inputs; standard input among them is read now,
    // in the order the paths are read.
    let delete_files: Vec<File> = input_files(&inputs.delete)
        .into_iter()
        .map(File::listed)
        .collect();
    let old_inputs = inputs
        .old
        .as_ref()
        .map(|p| read(std::slice::from_ref(p)))
        .unwrap_or_default();
    let policy_admission = policy_inputs
        .iter()
        .filter_map(|i| i.as_ref().ok())
        .any(is_admission_document);
    let mut files = survey(&inputs.documents, policy_admission, options.jobs);
    let admission_inputs = policy_admission
        || files
            .iter()
            .flat_map(File::documents)
            .any(is_admission_document);
    if admission_inputs && !policy_admission {
        // An admission document among the inputs: every file is needed now.
        files = parse_all(files, options.jobs);
    }

    // Every CRD document: those of `--crd` files first, then those among the inputs.
    let crd_docs: Vec<&Document<JsonBody>> = crd_inputs
        .iter()
        .filter_map(|i| i.as_ref().ok())
        .chain(files.iter().flat_map(File::documents))
        .filter(|d| d.is_crd())
        .collect();
    let version = validator.selected_kube_version();
    let (crd_outcomes, unusable) = crds::collect(&crd_docs, version, options.jobs);
    drop(crd_docs);
    let mut crd_outcomes = crd_outcomes.into_iter();
    let mut builder = validator;
    let mut early = Vec::new();
    for input in &crd_inputs {
        match input {
            Err(e) => early.push(Record::unreadable(e)),
            Ok(d) if d.is_crd() => {
                if let Some(o) = crd_outcomes.next() {
                    if o.record.outcome == Outcome::Error {
                        early.push(o.record);
                    }
                    if let Some(c) = o.crd.filter(|_| o.used) {
                        builder = builder.located_crd(c);
                    }
                }
            }
            Ok(_) => {}
        }
    }
    drop(crd_inputs);
    // The records of the CRDs among the inputs, each kept with its file.
    for file in &mut files {
        let crds = file.documents().filter(|d| d.is_crd()).count();
        for o in crd_outcomes.by_ref().take(crds) {
            if let Some(c) = o.crd.filter(|_| o.used) {
                builder = builder.located_crd(c);
            }
            file.crd_records.push_back(o.record);
        }
    }
    let mut policies = PolicySet::new(version, options.admission.clone());
    for input in &policy_inputs {
        match input {
            Ok(d) => policies.add_document(&d.to_serde()),
            Err(e) => early.push(Record::unreadable(e)),
        }
    }
    // Objects and Namespaces among the inputs are kept for policies (params, namespace
    // selectors): without any admission document there is no policy to read them, and keeping
    // them would copy every input.
    if admission_inputs {
        for d in files.iter().flat_map(File::documents) {
            if !d.is_crd() {
                policies.add_document(&d.to_serde());
            }
        }
    }
    let mut old = HashMap::new();
    for input in old_inputs {
        match input {
            Ok(d) => {
                old.insert(ObjectKey::of(&d.value), d.value.into_serde());
            }
            Err(e) => early.push(Record::unreadable(&e)),
        }
    }
    for record in early {
        if emit(record).is_break() {
            return Vec::new();
        }
    }
    let gate = Gate {
        validator: builder.build(),
        options,
        old,
        unusable,
        policies,
    };
    let sources: Vec<Source> = files
        .into_iter()
        .map(|file| (Operation::Create, file))
        .chain(delete_files.into_iter().map(|f| (Operation::Delete, f)))
        .collect();
    let expand = |(operation, file): Source| {
        let items = file.items(operation);
        if let Some(p) = progress {
            let objects = items
                .iter()
                .filter(|i| matches!(i, Item::Object(..)))
                .count();
            p.total.fetch_add(objects, Ordering::Relaxed);
        }
        items
    };
    let check = |item: Item| match item {
        Item::Done(record) => *record,
        Item::Object(operation, doc) => {
            let record = match operation {
                Operation::Delete => gate.check_delete(&doc),
                _ => gate.check(doc),
            };
            if let Some(p) = progress {
                p.done.fetch_add(1, Ordering::Relaxed);
            }
            record
        }
    };
    stream::ordered_stream(sources, options.jobs, expand, check, emit);
    gate.validator.builtins_notice().into_iter().collect()
}

/// A file of the inputs with its operation (documents are created, `--delete` ones deleted).
type Source = (Operation, File);

/// One file of the inputs (or a path that could not be listed), as the first pass left it.
struct File {
    /// The file's name, or why the path could not be listed.
    name: Result<String, DocumentError>,
    /// What the first pass read of it.
    content: Content,
    /// The records of the CRDs among its documents, in order.
    crd_records: VecDeque<Record>,
}

/// What the first pass read of a file.
enum Content {
    /// Nothing: the second pass reads it.
    Unread,
    /// Its text (standard input, which cannot be read twice).
    Text(Result<String, DocumentError>),
    /// Its documents.
    Parsed(Vec<Input>),
}

/// One document of a file as the second pass hands it on: a record already known (an
/// unreadable input, a CRD reviewed in the first pass), or an object to validate.
enum Item {
    Done(Box<Record>),
    Object(Operation, Document<JsonBody>),
}

impl File {
    fn unread(name: Result<String, DocumentError>) -> File {
        File {
            name,
            content: Content::Unread,
            crd_records: VecDeque::new(),
        }
    }

    /// A file to read later, but standard input, which is read now.
    fn listed(name: Result<String, DocumentError>) -> File {
        let content = match &name {
            Ok(n) if n == "-" => Content::Text(read_text(n)),
            _ => Content::Unread,
        };
        File {
            content,
            ..File::unread(name)
        }
    }

    /// The documents the first pass parsed.
    fn documents(&self) -> impl Iterator<Item = &Document<JsonBody>> {
        let parsed = match &self.content {
            Content::Parsed(inputs) => inputs.as_slice(),
            _ => &[],
        };
        parsed.iter().filter_map(|i| i.as_ref().ok())
    }

    /// Its documents, read now unless the first pass did: each CRD (of a created file) with
    /// its record from the first pass, each other document an object to validate.
    fn items(self, operation: Operation) -> Vec<Item> {
        let File {
            name,
            content,
            mut crd_records,
        } = self;
        let name = match name {
            Ok(n) => n,
            Err(e) => return vec![Item::Done(Box::new(Record::unreadable(&e)))],
        };
        let inputs = match content {
            Content::Unread => read_file(&name),
            Content::Text(text) => parse_file(&name, text),
            Content::Parsed(inputs) => inputs,
        };
        inputs
            .into_iter()
            .map(|input| match input {
                Err(e) => Item::Done(Box::new(Record::unreadable(&e))),
                Ok(d) if operation == Operation::Create && d.is_crd() => {
                    match crd_records.pop_front() {
                        Some(record) => Item::Done(Box::new(record)),
                        None => Item::Object(operation, d),
                    }
                }
                Ok(d) => Item::Object(operation, d),
            })
            .collect()
    }
}

/// The first pass over the files of `paths`, on up to `jobs` threads: each file's text is read;
/// the files that may hold a CRD or an admission document (or every file, with `all`) are
/// parsed; standard input keeps its text.
fn survey(paths: &[String], all: bool, jobs: NonZeroUsize) -> Vec<File> {
    let names = input_files(paths);
    let contents = parallel::ordered_map(&names, jobs, |name| {
        let Ok(name) = name else {
            return Content::Unread;
        };
        let text = read_text(name);
        let wanted = all || text.as_ref().is_ok_and(|t| may_hold_crd_or_policy(t));
        if wanted {
            Content::Parsed(parse_file(name, text))
        } else if name == "-" {
            Content::Text(text)
        } else {
            Content::Unread
        }
    });
    names
        .into_iter()
        .zip(contents)
        .map(|(name, content)| File {
            content,
            ..File::unread(name)
        })
        .collect()
}

/// `files` with every file parsed (on up to `jobs` threads), those the first pass left unread
/// or read as text.
fn parse_all(files: Vec<File>, jobs: NonZeroUsize) -> Vec<File> {
    parallel::ordered_map(files, jobs, |mut file| {
        if let Ok(name) = &file.name {
            file.content = match std::mem::replace(&mut file.content, Content::Unread) {
                Content::Unread => Content::Parsed(read_file(name)),
                Content::Text(text) => Content::Parsed(parse_file(name, text)),
                parsed @ Content::Parsed(_) => parsed,
            };
        }
        file
    })
}

/// Whether a document of `text` may be a CRD or an admission document: its `kind` or
/// `apiVersion` is written out in the text unless a quoted string escapes one of its characters
/// (`\u0043`, `\x43`, an escaped line break), which takes a backslash.
fn may_hold_crd_or_policy(text: &str) -> bool {
    text.contains('\\') || text.contains(CRD_KIND) || text.contains(admission::model::GROUP)
}

/// Whether `doc` is of the `admissionregistration.k8s.io` group, where every admission policy
/// and binding kind is (`admission::model::GROUP`).
fn is_admission_document(doc: &Document<JsonBody>) -> bool {
    is_admission_api_version(str_at(&doc.value, "/apiVersion"))
}

/// Whether `api_version` is of the `admissionregistration.k8s.io` group.
fn is_admission_api_version(api_version: &str) -> bool {
    api_version
        .split_once('/')
        .is_some_and(|(group, _)| group == admission::model::GROUP)
}

/// [`crate::documents::read_inputs`], the files parsed on up to `jobs` threads, their documents kept in input
/// order.
fn read_inputs_on(paths: &[String], jobs: NonZeroUsize) -> Vec<Input> {
    let files = input_files(paths);
    let names: Vec<Option<&str>> = files
        .iter()
        .map(|f| f.as_ref().ok().map(String::as_str))
        .collect();
    let parsed = parallel::ordered_map(&names, jobs, |name| name.map(read_file));
    files
        .into_iter()
        .zip(parsed)
        .flat_map(|(file, docs)| match file {
            Ok(_) => docs.unwrap_or_default(),
            Err(e) => vec![Err(e)],
        })
        .collect()
}

/// What validating one object needs.
struct Gate<'o> {
    validator: Validator,
    options: &'o GateOptions,
    old: HashMap<ObjectKey, Value>,
    unusable: crds::Unusable,
    policies: PolicySet,
}

impl Gate<'_> {
    /// `object` as admission sees it: with the Go defaults of its built-in kind.
    fn defaulted(&self, object: &Value) -> Value {
        self.policies
            .defaulted(&self.validator, object)
            .unwrap_or_else(|| object.clone())
    }

    /// The record of a document that is not sent at all: no `kind` or `apiVersion`, or a kind
    /// skipped or rejected; else its `apiVersion` and `kind`.
    fn screen<'d>(&self, doc: &'d Document<JsonBody>) -> Result<(&'d str, &'d str), Box<Record>> {
        let error = |message: String| Box::new(Record::of(doc, Outcome::Error, message));
        let s = |p: &str| str_at(&doc.value, p);
        let (api_version, kind) = (s("/apiVersion"), s("/kind"));
        // apimachinery's decoders check the kind first (`runtime/serializer/json`).
        if kind.is_empty() {
            return Err(error("Object 'Kind' is missing".into()));
        }
        if api_version.is_empty() {
            return Err(error("Object 'apiVersion' is missing".into()));
        }
        if self.options.skip_kinds.matches(api_version, kind) {
            return Err(Box::new(Record::of(
                doc,
                Outcome::Skipped,
                "kind skipped (--skip-kinds)".into(),
            )));
        }
        if self.options.reject_kinds.matches(api_version, kind) {
            return Err(error(format!("prohibited resource kind {kind}")));
        }
        Ok((api_version, kind))
    }

    /// The record of an object no usable CRD or built-in kind serves (`e`): an error naming
    /// the unusable CRD if one is why, a skip under `--ignore-missing-schemas`, else `e`.
    fn missing_schema(&self, head: Record, e: &Error) -> Record {
        let (api_version, kind) = (head.api_version.as_str(), head.kind.as_str());
        let (outcome, message) = if let Some(why) = self.unusable.reason(api_version, kind) {
            (
                Outcome::Error,
                format!(
                    "no usable CustomResourceDefinition serves kind {kind:?} in version {api_version:?}: {why}"
                ),
            )
        } else if self.options.ignore_missing_schemas {
            (
                Outcome::Skipped,
                "no schema (--ignore-missing-schemas)".into(),
            )
        } else {
            (Outcome::Error, e.to_string())
        };
        Record {
            outcome,
            message,
            ..head
        }
    }

    /// The record of an object to delete: the stored object of a DELETE request (`object`
    /// null, `oldObject` the document), which only the validating admission policies answer:
    /// the server validates no schema on delete (`registry/generic/registry/store.go` `Delete`
    /// runs the admission's `deleteValidation` on the stored object), and mutating policies
    /// have no object to mutate.
    fn check_delete(&self, doc: &Document<JsonBody>) -> Record {
        let (api_version, kind) = match self.screen(doc) {
            Ok(k) => k,
            Err(record) => return *record,
        };
        let mut head = Record::of(doc, Outcome::Valid, String::new());
        head.operation = Some(Operation::Delete);
        if self.validator.served_resource(api_version, kind).is_none() {
            let e = Error::NoMatchingCrd {
                api_version: api_version.to_string(),
                kind: kind.to_string(),
            };
            return self.missing_schema(head, &e);
        }
        let mut verdict = Verdict {
            kind: kind.to_string(),
            name: head.name.clone(),
            status: Status::success(),
            warnings: Vec::new(),
            object: None,
            unknown_fields: Vec::new(),
            duplicate_fields: Vec::new(),
            decode_error: None,
            rules_skipped: false,
        };
        let stored = self.defaulted(&doc.value.to_serde());
        let admitted = self.policies.admit(
            &self.validator,
            None,
            Some(&stored),
            Operation::Delete,
            self.options.namespace.as_deref(),
        );
        let Some((attr, answer)) = admitted else {
            return head.answer(verdict);
        };
        verdict.warnings.extend(answer.warnings.iter().cloned());
        if let Some(status) = answer.status(&attr) {
            verdict.status = status;
        }
        let mut record = head.answer(verdict);
        record.audit_annotations = answer.audit_annotations;
        record
    }

    /// The record of one object document, which moves into its request.
    fn check(&self, doc: Document<JsonBody>) -> Record {
        if let Err(record) = self.screen(&doc) {
            return *record;
        }
        // The record names the document as written, before the request changes it.
        let mut head = Record::of(&doc, Outcome::Valid, String::new());
        let old = if self.old.is_empty() {
            None
        } else {
            self.old.get(&ObjectKey::of(&doc.value))
        };
        head.operation = Some(if old.is_some() {
            Operation::Update
        } else {
            Operation::Create
        });
        // Only a policy or binding document has a decoding error or API validation errors.
        let admission_document =
            is_admission_api_version(&head.api_version).then(|| doc.to_serde());
        let decode_error = admission_document
            .as_ref()
            .and_then(|d| self.policies.decode_error(d).map(ToString::to_string));
        let review = admission_document
            .as_ref()
            .map(|d| self.policies.review(d))
            .unwrap_or_default();
        // The object policies see: the converted document when there is one already.
        let object = (!self.policies.is_empty()).then(|| match admission_document {
            Some(d) => d.value,
            None => doc.value.to_serde(),
        });
        let admission = Admission {
            decode_error,
            review,
            object,
        };
        let request = match old {
            Some(o) => Request::update(doc.value, o.clone()),
            None => Request::create(doc.value),
        }
        .in_namespace(self.options.namespace.clone());
        match self.validator.validate(request) {
            Ok(verdict) => self.admit(head, verdict, old, admission),
            Err(e @ Error::NoMatchingCrd { .. }) => self.missing_schema(head, &e),
            Err(e) => {
                let served_by = self
                    .validator
                    .find_kind(&head.api_version, &head.kind)
                    .and_then(|id| self.validator.crd_location(id));
                let message = match served_by {
                    Some(at) => format!("{e} (CustomResourceDefinition at {at})"),
                    None => e.to_string(),
                };
                Record {
                    outcome: Outcome::Error,
                    message,
                    ..head
                }
            }
        }
    }
}

impl Gate<'_> {
    /// The record of an object the pipeline answered, after admission: a policy or binding
    /// document gets the server's API validation; any other accepted object goes through the
    /// mutating admission policies (a changed object is validated again and kept in the
    /// record), then the validating admission policies (a denial replaces the accepted status; warnings and
    /// audit annotations are added).
    fn admit(
        &self,
        head: Record,
        mut verdict: Verdict,
        old: Option<&Value>,
        admission: Admission,
    ) -> Record {
        if !verdict.is_valid() {
            return head.answer(verdict);
        }
        // The server validates what it decoded (enums as strings): its errors come before what
        // kcel's typed model cannot decode.
        if !admission.review.is_empty() {
            verdict.status = Status::invalid(
                admission::model::GROUP,
                &head.kind,
                &verdict.name,
                &admission.review,
                self.validator.kube_version(),
            );
            return head.answer(verdict);
        }
        if let Some(message) = admission.decode_error {
            return Record {
                outcome: Outcome::Error,
                message,
                ..head
            };
        }
        let Some(written) = admission.object else {
            return head.answer(verdict);
        };
        let operation = if old.is_some() {
            Operation::Update
        } else {
            Operation::Create
        };
        // Mutating admission runs on the object as it would be stored, with the Go defaults
        // of a built-in kind (the server defaults while decoding, before admission); a changed
        // object goes through the pipeline again (the server validates the mutated object),
        // then the validating policies see it. The stored old object carries its defaults too.
        let mut mutated = None;
        let stored = self.defaulted(
            verdict
                .object
                .as_ref()
                .map_or(&written, StoredObject::as_value),
        );
        let stored = &stored;
        let stored_old = old.map(|o| self.defaulted(o));
        let namespace = self.options.namespace.as_deref();
        match self.policies.mutate(
            &self.validator,
            stored,
            stored_old.as_ref(),
            operation,
            namespace,
        ) {
            None => {}
            Some(Err(e)) => {
                verdict.status = Status::failure(e.code, &e.reason, e.message);
                return head.answer(verdict);
            }
            Some(Ok(outcome)) => match outcome.object {
                Some(object) if object != *stored => {
                    let request = match old {
                        Some(o) => Request::update(object.clone(), o.clone()),
                        None => Request::create(object.clone()),
                    }
                    .in_namespace(self.options.namespace.clone());
                    match self.validator.validate(request) {
                        Ok(v) => verdict = v,
                        Err(e) => {
                            return Record {
                                outcome: Outcome::Error,
                                message: e.to_string(),
                                ..head
                            };
                        }
                    }
                    mutated = Some(
                        verdict
                            .object
                            .clone()
                            .map_or(object, StoredObject::into_value),
                    );
                    if !verdict.is_valid() {
                        let mut record = head.answer(verdict);
                        record.mutated = mutated;
                        return record;
                    }
                }
                _ => {}
            },
        }
        let object = self.defaulted(
            verdict
                .object
                .as_ref()
                .map_or(&written, StoredObject::as_value),
        );
        let admitted = self.policies.admit(
            &self.validator,
            Some(&object),
            stored_old.as_ref(),
            operation,
            self.options.namespace.as_deref(),
        );
        let Some((attr, answer)) = admitted else {
            let mut record = head.answer(verdict);
            record.mutated = mutated;
            return record;
        };
        verdict.warnings.extend(answer.warnings.iter().cloned());
        if let Some(status) = answer.status(&attr) {
            verdict.status = status;
        }
        let mut record = head.answer(verdict);
        record.audit_annotations = answer.audit_annotations;
        record.mutated = mutated;
        record
    }
}

/// What the admission policies need of a document, taken before the document moves into its
/// request: a policy's decoding error, the API validation of a policy or binding, and the
/// object as written when policies apply.
struct Admission {
    decode_error: Option<String>,
    review: Vec<FieldError>,
    object: Option<Value>,
}

/// A [`Validator`] is shared by the threads of a run.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Validator>();
};
