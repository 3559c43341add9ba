//! `lemplint server`: a language server over stdio.
//!
//! The editor's open documents lie over the disk ([`editor_fs::EditorFs`]); after each
//! change the whole stack is linted again as `lint` lints it (same discovery, config,
//! rules, suppressions) and every file of it gets its diagnostics: a fix in one file clears
//! a finding shown in another. Code actions come from the last lint's fixes; hover, go to
//! definition and the outline read its trees.
//!
//! The lint runs on its own thread ([`worker`]), started at the change itself and cancelled
//! by the next one; after a keystroke its findings are published once the user pauses
//! ([`DEBOUNCE`]), so diagnostics do not flicker while a word is half typed, and are ready
//! when the pause comes rather than computed only then. Opening, closing or saving a file
//! shows them as soon as they are ready. A lint costs one parse, not the stack's: every
//! file is read again, but one whose bytes are those of the last lint keeps that lint's
//! source and tree ([`editor_fs::Trees`]). Rules run on the whole stack each time (they look
//! across files); what is sent is only what changed: a file whose findings are the last
//! lint's, in the same unchanged sources, keeps the list it was sent without converting it
//! again.
//!
//! Requests are answered on the main thread from the newest text: one that arrives while a
//! lint of the newest text is under way waits for it, so an answer never refers to text
//! older than what the client last sent.

mod actions;
mod editor_fs;
mod lines;
mod navigate;
mod transport;
pub mod uri;
mod worker;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::Workspace;
use lines::LineIndex;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the user must pause typing before the stack is linted again.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

pub fn run() -> i32 {
    // Not `Connection::stdio()`: its reader allocates whatever length a client announces
    // (see [`transport`]).
    let (connection, io) = transport::stdio();
    let mut code = match serve(&connection) {
        Ok(()) => crate::exit::EXIT_OK,
        Err(e) => {
            eprintln!("lemplint server: {e}");
            crate::exit::EXIT_ERROR
        }
    };
    drop(connection);
    if let Some(broken) = io.finish() {
        eprintln!("lemplint server: {broken}; the stream cannot be resynchronised");
        code = crate::exit::EXIT_ERROR;
    }
    code
}

fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(
            lsp::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
                save: Some(lsp::TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(
            lsp::CodeActionOptions {
                code_action_kinds: Some(vec![
                    lsp::CodeActionKind::QUICKFIX,
                    lsp::CodeActionKind::SOURCE_FIX_ALL,
                ]),
                resolve_provider: Some(false),
                ..Default::default()
            },
        )),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp::OneOf::Left(true)),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        ..Default::default()
    }
}

fn serve(conn: &Connection) -> Result<(), String> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    let params = conn.initialize(caps).map_err(|e| e.to_string())?;
    let params: lsp::InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("bad initialize params: {e}"))?;
    let mut server = Server::new(conn, roots(&params));
    if watches_files(&params) {
        server.watch_config();
    }
    server.main_loop()
}

/// Whether the client can watch files for the server (`workspace/didChangeWatchedFiles`
/// registered at run time).
fn watches_files(params: &lsp::InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false)
}

/// The workspace folders the client names (the root URI for older clients).
#[allow(deprecated)]
fn roots(params: &lsp::InitializeParams) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| uri::to_path(f.uri.as_str()))
        .collect();
    if out.is_empty() {
        out.extend(
            params
                .root_uri
                .as_ref()
                .and_then(|u| uri::to_path(u.as_str())),
        );
    }
    out.iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect()
}

#[derive(Clone)]
pub struct Document {
    version: i32,
    /// Shared with the lint worker's copy of the documents (a change copies it once).
    pub text: std::sync::Arc<Vec<u8>>,
}

/// The last lint: its stacks (for navigation) and findings.
pub struct Analysis {
    pub workspace: Workspace,
    pub diagnostics: Vec<Diagnostic>,
    /// The findings' positions in `diagnostics` by the real path of their file, in order:
    /// grouped by the worker, off the thread that publishes.
    by_file: HashMap<PathBuf, Vec<usize>>,
}

impl Analysis {
    pub fn new(workspace: Workspace, diagnostics: Vec<Diagnostic>) -> Analysis {
        let mut files = FileCache::default();
        let mut by_file: HashMap<PathBuf, Vec<usize>> = HashMap::new();
        for (i, d) in diagnostics.iter().enumerate() {
            let path = &files.get(&d.file).real;
            match by_file.get_mut(path) {
                Some(list) => list.push(i),
                None => {
                    by_file.insert(path.clone(), vec![i]);
                }
            }
        }
        drop(files);
        Analysis {
            workspace,
            diagnostics,
            by_file,
        }
    }
}

struct Server<'c> {
    conn: &'c Connection,
    roots: Vec<PathBuf>,
    docs: HashMap<PathBuf, Document>,
    /// What each file was last sent (files with problems only): a file whose problems are
    /// gone is cleared, and one whose problems did not change is not sent them again (a
    /// keystroke in one file of a large stack sends one list, not hundreds).
    published: HashMap<PathBuf, Vec<lsp::Diagnostic>>,
    analysis: Option<Analysis>,
    worker: worker::Worker,
    /// Bumped by every change that calls for a lint; the worker lints the newest.
    generation: u64,
    /// The generation whose findings were published last.
    shown: u64,
    /// The newest generation's lint, finished, waiting for the user's pause.
    ready: Option<worker::Done>,
    /// When the newest generation's findings may be published (`None`: nothing waits).
    due: Option<Instant>,
    /// The last lint's error (a broken lemplint.toml), shown once until it changes.
    last_error: Option<String>,
}

/// The real path of a file the lint read: where its document is keyed and its URI points.
/// Paths found under the (canonical) workspace folders are real already unless a symlink
/// led elsewhere, which [`SourceFile::through_link`] says: only then is the disk asked.
pub fn real_of(file: &crate::source::SourceFile) -> PathBuf {
    if file.member.is_none() && file.through_link.is_none() && file.path.is_absolute() {
        return file.path.clone();
    }
    real(file.real_path())
}

/// A path's real path (symlinks resolved), or the path made absolute when it does not exist.
pub fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or(path.into()))
}

impl<'c> Server<'c> {
    fn new(conn: &'c Connection, roots: Vec<PathBuf>) -> Self {
        Server {
            conn,
            roots,
            docs: HashMap::new(),
            published: HashMap::new(),
            analysis: None,
            worker: worker::Worker::start(),
            generation: 0,
            shown: 0,
            ready: None,
            due: None,
            last_error: None,
        }
    }

    fn main_loop(&mut self) -> Result<(), String> {
        loop {
            // A finished lint is shown when the pause is over (at once if it is already).
            let timer = match (self.due, &self.ready) {
                (Some(due), Some(_)) => crossbeam_channel::at(due),
                _ => crossbeam_channel::never(),
            };
            let worker = self.worker.done.clone();
            crossbeam_channel::select! {
                recv(self.conn.receiver) -> msg => {
                    let Ok(msg) = msg else { return Ok(()) };
                    match msg {
                        Message::Request(req) => {
                            if self.conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                                return Ok(());
                            }
                            self.request(req);
                        }
                        Message::Notification(n) => {
                            if n.method == "exit" {
                                return Ok(());
                            }
                            self.notification(n);
                        }
                        Message::Response(_) => {}
                    }
                }
                recv(worker) -> done => {
                    let Ok(done) = done else {
                        return Err("the lint thread stopped".into());
                    };
                    self.finished(done);
                }
                recv(timer) -> _ => {}
            }
            if self.due.is_some_and(|due| Instant::now() >= due) && self.ready.is_some() {
                self.show_ready();
            }
        }
    }

    /// Asks the client to say when a `lemplint.toml` changes on disk, so a change to the
    /// settings lints again even when the file is not open in the editor.
    fn watch_config(&mut self) {
        let options = lsp::DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![lsp::FileSystemWatcher {
                glob_pattern: lsp::GlobPattern::String("**/{lemplint.toml,.lemplint.toml}".into()),
                kind: None,
            }],
        };
        let params = lsp::RegistrationParams {
            registrations: vec![lsp::Registration {
                id: "lemplint-config".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.send(Message::Request(Request::new(
            RequestId::from("lemplint/watch-config".to_string()),
            <lsp::request::RegisterCapability as lsp::request::Request>::METHOD.to_string(),
            params,
        )));
    }

    fn send(&self, msg: Message) {
        let _ = self.conn.sender.send(msg);
    }

    fn notify<N: lsp::notification::Notification>(&self, params: N::Params) {
        self.send(Message::Notification(Notification::new(
            N::METHOD.to_string(),
            params,
        )));
    }

    fn reply(&self, id: RequestId, result: Result<serde_json::Value, String>) {
        let response = match result {
            Ok(v) => Response::new_ok(id, v),
            Err(msg) => Response::new_err(id, ErrorCode::InvalidParams as i32, msg),
        };
        self.send(Message::Response(response));
    }

    /// The text or the disk changed: the worker lints it at once, and its findings are
    /// shown once `pause` has passed ([`DEBOUNCE`] after a keystroke, none after opening,
    /// closing or saving a file, when nothing is half typed).
    fn changed(&mut self, pause: Duration) {
        self.generation += 1;
        self.ready = None;
        self.due = Some(Instant::now() + pause);
        let paths = self.lint_paths();
        self.worker.submit(worker::Job {
            generation: self.generation,
            paths,
            docs: self.docs.clone(),
        });
    }

    /// A lint the worker finished: kept until the pause is over when it is the newest.
    fn finished(&mut self, done: worker::Done) {
        if done.generation == self.generation && self.shown != self.generation {
            self.ready = Some(done);
        }
    }

    /// Waits for the newest text's lint and shows it, whatever the pause: a request is
    /// answered from what the client last sent.
    fn catch_up(&mut self) {
        while self.shown != self.generation && self.ready.is_none() {
            match self.worker.done.recv() {
                Ok(done) => self.finished(done),
                Err(_) => return,
            }
        }
        if self.ready.is_some() {
            self.show_ready();
        }
    }

    fn notification(&mut self, n: Notification) {
        use lsp::notification::*;
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidOpenTextDocumentParams>(n.params) {
                    if let Some(path) = uri::to_path(p.text_document.uri.as_str()) {
                        self.docs.insert(
                            real(&path),
                            Document {
                                version: p.text_document.version,
                                text: std::sync::Arc::new(p.text_document.text.into_bytes()),
                            },
                        );
                        self.changed(Duration::ZERO);
                    }
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidChangeTextDocumentParams>(n.params)
                {
                    let Some(path) = uri::to_path(p.text_document.uri.as_str()) else {
                        return;
                    };
                    if let Some(doc) = self.docs.get_mut(&real(&path)) {
                        let text = std::sync::Arc::make_mut(&mut doc.text);
                        for change in p.content_changes {
                            apply_change(text, change);
                        }
                        doc.version = p.text_document.version;
                        self.changed(DEBOUNCE);
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidCloseTextDocumentParams>(n.params) {
                    if let Some(path) = uri::to_path(p.text_document.uri.as_str()) {
                        self.docs.remove(&real(&path));
                        self.changed(Duration::ZERO);
                    }
                }
            }
            // A save, a file changed outside the editor, or new settings: the disk or
            // lemplint.toml may say something new.
            DidSaveTextDocument::METHOD
            | DidChangeWatchedFiles::METHOD
            | DidChangeConfiguration::METHOD => self.changed(Duration::ZERO),
            _ => {}
        }
    }

    fn request(&mut self, req: Request) {
        use lsp::request::*;
        // Answers refer to the text the client last sent.
        self.catch_up();
        let id = req.id.clone();
        let result = match req.method.as_str() {
            CodeActionRequest::METHOD => self.with_params(req, |s, p: lsp::CodeActionParams| {
                actions::code_actions(s.analysis.as_ref(), &p)
            }),
            HoverRequest::METHOD => self.with_params(req, |s, p: lsp::HoverParams| {
                navigate::hover(s.analysis.as_ref(), &p)
            }),
            GotoDefinition::METHOD => self.with_params(req, |s, p: lsp::GotoDefinitionParams| {
                navigate::definition(s.analysis.as_ref(), &p)
            }),
            DocumentSymbolRequest::METHOD => self
                .with_params(req, |s, p: lsp::DocumentSymbolParams| {
                    navigate::symbols(s.analysis.as_ref(), &p)
                }),
            _ => {
                self.send(Message::Response(Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("lemplint does not handle {}", req.method),
                )));
                return;
            }
        };
        self.reply(id, result);
    }

    fn with_params<P: serde::de::DeserializeOwned, R: serde::Serialize>(
        &self,
        req: Request,
        f: impl FnOnce(&Self, P) -> R,
    ) -> Result<serde_json::Value, String> {
        let params: P = serde_json::from_value(req.params).map_err(|e| e.to_string())?;
        serde_json::to_value(f(self, params)).map_err(|e| e.to_string())
    }

    /// The paths to lint: the workspace folders, and each open document outside them, as
    /// `lemplint lint FILE` lints it. Not its directory: a file opened from `/tmp` or
    /// `~/Downloads` made the editor lint everything beside it.
    fn lint_paths(&self) -> Vec<PathBuf> {
        let mut paths = self.roots.clone();
        for path in self.docs.keys() {
            if !paths.iter().any(|r| path.starts_with(r)) {
                paths.push(path.clone());
            }
        }
        paths
    }

    /// Publishes the newest lint (see [`Server::publish`]).
    fn show_ready(&mut self) {
        let Some(done) = self.ready.take() else {
            return;
        };
        let started = Instant::now();
        self.due = None;
        self.shown = done.generation;
        // The last lint's findings, to tell which files' lists did not change.
        let last = self.analysis.take();
        match done.result {
            Ok(analysis) => {
                self.last_error = None;
                self.analysis = Some(analysis);
            }
            Err(msg) if msg.starts_with("no configuration files found") => {
                // Nothing to lint is no error in an editor.
                self.analysis = None;
            }
            Err(msg) => {
                // A broken lemplint.toml: said once, and the last findings stay shown until
                // it can be read again (clearing them would claim the files are clean).
                if self.last_error.as_ref() != Some(&msg) {
                    self.notify::<lsp::notification::ShowMessage>(lsp::ShowMessageParams {
                        typ: lsp::MessageType::ERROR,
                        message: format!("lemplint: {}", crate::escape::text(&msg)),
                    });
                    self.last_error = Some(msg);
                }
                self.analysis = last;
                return;
            }
        }
        self.publish(last.as_ref());
        crate::timings::report(format_args!("publish"), started);
    }

    /// Sends each file its findings; a file with none now is cleared, and an open document
    /// always hears back (an empty list says "clean at this version"). A file whose
    /// findings are the `last` lint's, in sources that did not change (the same
    /// [`Shared`](crate::source::Shared), as the kept trees make it), keeps the list it was
    /// sent: only the files a change touched are converted to LSP terms again.
    fn publish(&mut self, last: Option<&Analysis>) {
        let mut files = FileCache::default();
        let empty = HashMap::new();
        let (new, new_by_file) = match &self.analysis {
            Some(a) => (&a.diagnostics[..], &a.by_file),
            None => (&[][..], &empty),
        };
        let (old, old_by_file) = match last {
            Some(a) => (&a.diagnostics[..], &a.by_file),
            None => (&[][..], &empty),
        };
        let mut before = std::mem::take(&mut self.published);
        for (path, found) in new_by_file {
            let open = self.docs.contains_key(path);
            let kept = old_by_file.get(path).is_some_and(|o| {
                o.len() == found.len()
                    && o.iter()
                        .zip(found)
                        .all(|(&a, &b)| same_finding(&old[a], &new[b]))
            });
            let diags = match before.remove(path) {
                Some(sent) if kept => {
                    if open {
                        self.publish_file(path, sent.clone());
                    }
                    sent
                }
                sent => {
                    let diags: Vec<lsp::Diagnostic> =
                        found.iter().map(|&i| to_lsp(&new[i], &mut files)).collect();
                    if open || sent.as_ref() != Some(&diags) {
                        self.publish_file(path, diags.clone());
                    }
                    diags
                }
            };
            self.published.insert(path.clone(), diags);
        }
        // What is left had findings and has none now.
        for path in before.keys() {
            self.publish_file(path, Vec::new());
        }
        for path in self.docs.keys() {
            if !self.published.contains_key(path) && !before.contains_key(path) {
                self.publish_file(path, Vec::new());
            }
        }
    }

    fn publish_file(&self, path: &Path, diagnostics: Vec<lsp::Diagnostic>) {
        let Ok(uri) = uri::from_path(path).parse::<lsp::Uri>() else {
            return;
        };
        self.notify::<lsp::notification::PublishDiagnostics>(lsp::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: self.docs.get(path).map(|d| d.version),
        });
    }
}

/// Applies one change the client sent (a range replaced, or the whole text).
fn apply_change(text: &mut Vec<u8>, change: lsp::TextDocumentContentChangeEvent) {
    match change.range {
        Some(range) => {
            let idx = LineIndex::new(text);
            let (from, to) = (
                idx.offset(range.start) as usize,
                idx.offset(range.end) as usize,
            );
            let to = to.max(from);
            text.splice(from..to, change.text.into_bytes());
        }
        None => *text = change.text.into_bytes(),
    }
}

/// The LSP form of a finding (ranges in the text it was found in).
pub fn to_lsp<'a>(d: &'a Diagnostic, files: &mut FileCache<'a>) -> lsp::Diagnostic {
    let range = files.range(&d.file, d.span);
    let related: Vec<lsp::DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            let uri = files.get(&l.file).uri()?.clone();
            Some(lsp::DiagnosticRelatedInformation {
                location: lsp::Location::new(uri, files.range(&l.file, l.span)),
                message: crate::escape::text(&l.text).into_owned(),
            })
        })
        .collect();
    let mut message = crate::escape::text(&d.message).into_owned();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(&crate::escape::text(help));
    }
    lsp::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Info => lsp::DiagnosticSeverity::INFORMATION,
        }),
        code: Some(lsp::NumberOrString::String(d.code.to_string())),
        source: Some("lemplint".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// Whether two findings read the same in LSP terms: same rule, severity, text and places,
/// in the same sources (so the same lines and columns).
fn same_finding(a: &Diagnostic, b: &Diagnostic) -> bool {
    use std::sync::Arc;
    Arc::ptr_eq(&a.file, &b.file)
        && a.span == b.span
        && a.code == b.code
        && a.severity == b.severity
        && a.message == b.message
        && a.help == b.help
        && a.labels.len() == b.labels.len()
        && a.labels
            .iter()
            .zip(&b.labels)
            .all(|(x, y)| Arc::ptr_eq(&x.file, &y.file) && x.span == y.span && x.text == y.text)
}

/// What turning findings into LSP terms needs of each file, worked out once per file (not
/// per finding and label: a keystroke in a large stack converts thousands): its real path,
/// its URI and its line index.
#[derive(Default)]
pub struct FileCache<'a> {
    by_file: HashMap<*const crate::source::SourceFile, CachedFile<'a>>,
}

pub struct CachedFile<'a> {
    /// [`real_of`] the file.
    pub real: PathBuf,
    text: &'a [u8],
    /// Its `file://` URI and line index, made when first asked for: a file whose findings
    /// did not change is only grouped by its real path.
    uri: std::cell::OnceCell<Option<lsp::Uri>>,
    lines: std::cell::OnceCell<LineIndex<'a>>,
}

impl CachedFile<'_> {
    /// Its `file://` URI (`None` when it cannot be one).
    pub fn uri(&self) -> Option<&lsp::Uri> {
        self.uri
            .get_or_init(|| uri::from_path(&self.real).parse().ok())
            .as_ref()
    }
}

impl<'a> FileCache<'a> {
    pub fn get(&mut self, file: &'a crate::source::Shared) -> &CachedFile<'a> {
        self.by_file
            .entry(std::sync::Arc::as_ptr(file))
            .or_insert_with(|| CachedFile {
                real: real_of(file),
                text: &file.text,
                uri: Default::default(),
                lines: Default::default(),
            })
    }

    /// A span's range in the file.
    pub fn range(
        &mut self,
        file: &'a crate::source::Shared,
        span: crate::source::Span,
    ) -> lsp::Range {
        let f = self.get(file);
        f.lines.get_or_init(|| LineIndex::new(f.text)).range(span)
    }
}
