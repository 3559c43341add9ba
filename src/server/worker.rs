//! The lint worker: lints the stack on its own thread, as soon as the text changes.
//!
//! The server hands it every change at once (a [`Job`]: the open documents as they are now)
//! and goes on reading the client. A job that a newer one overtakes is cancelled between
//! stages and before each rule ([`crate::engine::Cancelled`]), so at most one rule's time is
//! spent on text the user has already changed. What the worker finishes comes back as a
//! [`Done`]; the server publishes it once the user has paused ([`super::DEBOUNCE`]). The lint
//! runs while the user is still pausing, so the diagnostics are ready when the pause is long
//! enough to show them, instead of being started only then.
//!
//! The worker owns the nginx trees kept from one lint to the next ([`Trees`]), so a lint
//! parses only the files whose bytes changed.

use super::editor_fs::{EditorFs, Trees};
use super::{Analysis, Document};
use crate::engine::StackArgs;
use crossbeam_channel::{Receiver, Sender};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One lint to run: the text as of `generation`.
pub struct Job {
    pub generation: u64,
    pub paths: Vec<PathBuf>,
    /// The open documents, by real path (their texts are shared with the server's).
    pub docs: HashMap<PathBuf, Document>,
}

/// A finished lint of `generation`.
pub struct Done {
    pub generation: u64,
    pub result: Result<Analysis, String>,
}

pub struct Worker {
    jobs: Sender<Job>,
    pub done: Receiver<Done>,
    /// The newest generation the server asked for: a job of an older one stops.
    latest: Arc<AtomicU64>,
}

impl Worker {
    pub fn start() -> Worker {
        let (jobs, queue) = crossbeam_channel::unbounded::<Job>();
        let (finished, done) = crossbeam_channel::unbounded::<Done>();
        let latest = Arc::new(AtomicU64::new(0));
        let newest = latest.clone();
        std::thread::Builder::new()
            .name("lemplint-lint".into())
            .spawn(move || {
                // The loop runs on a worker of its own pool, as `lint` does (see main.rs):
                // the thread that loads the stack also runs rules, in the heap the load
                // freed memory to.
                match rayon::ThreadPoolBuilder::new().build() {
                    Ok(pool) => pool.install(|| run(queue, finished, newest)),
                    Err(_) => run(queue, finished, newest),
                }
            })
            .expect("the lint thread starts");
        Worker { jobs, done, latest }
    }

    /// Lints the text as of `job.generation` (the newest), cancelling any older lint.
    pub fn submit(&self, job: Job) {
        self.latest.store(job.generation, Ordering::SeqCst);
        let _ = self.jobs.send(job);
    }
}

fn run(queue: Receiver<Job>, finished: Sender<Done>, latest: Arc<AtomicU64>) {
    let mut trees = Trees::default();
    while let Ok(mut job) = queue.recv() {
        // Only the newest of the jobs waiting is worth running.
        while let Ok(newer) = queue.try_recv() {
            job = newer;
        }
        let generation = job.generation;
        if latest.load(Ordering::SeqCst) != generation {
            continue;
        }
        let started = std::time::Instant::now();
        if job.paths.is_empty() {
            // No workspace folder and no document: nothing to lint, nothing to show.
            let result = Err("no configuration files found".to_string());
            if finished.send(Done { generation, result }).is_err() {
                return;
            }
            continue;
        }
        let args = StackArgs {
            paths: job.paths,
            ..Default::default()
        };
        let fs = EditorFs {
            base: crate::engine::real_fs(&args),
            docs: &job.docs,
            trees: &trees,
        };
        let cancelled = || latest.load(Ordering::SeqCst) != generation;
        let result = crate::engine::collect_cancellable(&args, &[], &[], None, &fs, &cancelled);
        let result = match result {
            Ok(Some((workspace, findings))) => Ok(Analysis::new(workspace, findings.diagnostics)),
            Ok(None) => {
                trees.keep_all();
                crate::timings::report(format_args!("cancelled lint"), started);
                continue;
            }
            Err(e) => Err(e),
        };
        trees.finish();
        crate::timings::report(format_args!("lint"), started);
        if finished.send(Done { generation, result }).is_err() {
            return;
        }
    }
}
