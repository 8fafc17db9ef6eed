//! # hoyito-web
//!
//! The web board of Hoyito (`solve serve`): an analysis board in the browser with every
//! move's value beside it, proven or estimated, play against the engine, Hoyito III
//! matches, records, and the opening book, over a small JSON API.
//!
//! The page (one HTML file, three JavaScript modules, one CSS file and a favicon, in
//! `assets/`) is compiled into the binary and only draws and calls the API; every rule, move and value comes from the
//! [`hoyito`] library ([`hoyito::board`] and [`hoyito::analysis`]). The API is documented in
//! `docs/web.md`.
//!
//! The server is [axum](https://docs.rs/axum) on tokio: analyses run on blocking threads,
//! each with a stop flag that a newer analysis of the same tab, or the closing of its
//! event stream, sets.
//!
//! ```no_run
//! let options = hoyito_web::Options::default();
//! hoyito_web::serve_blocking(options, |address| println!("{address}")).unwrap();
//! ```

#![warn(missing_docs)]

mod api;
mod assets;
mod stream;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, Result};
use axum::Router;
use tokio::sync::Semaphore;

pub use api::ApiError;

/// Largest request body accepted, in bytes (a record of a long match fits many times).
pub const BODY_LIMIT: usize = 256 * 1024;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to bind (`127.0.0.1`: this machine only).
    pub host: String,
    /// The port (0: any free port).
    pub port: u16,
    /// Endgame tables for the analyses and the engine (2x6); `None`: the default folder
    /// when it holds tables.
    pub tables: Option<PathBuf>,
    /// Analyses run at once, over all tabs (more wait for a free slot).
    pub max_analyses: usize,
    /// Longest time an analysis may try to prove the moves' values, in milliseconds.
    pub analysis_ms: u64,
    /// Longest time the perfect player thinks before it moves with what it has.
    pub engine_ms: u64,
    /// Transposition table of each analysis, MiB.
    pub hash_mb: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            host: "127.0.0.1".to_string(),
            port: 8080,
            tables: None,
            max_analyses: 4,
            analysis_ms: 20_000,
            engine_ms: 5_000,
            hash_mb: 32,
        }
    }
}

/// What the handlers share: the options, the stop flag of each tab's analysis and the
/// slots of the analyses that run at once.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    options: Options,
    tabs: Mutex<HashMap<String, Arc<AtomicBool>>>,
    slots: Arc<Semaphore>,
}

impl AppState {
    /// The state of a server with these options.
    pub fn new(options: Options) -> Self {
        let slots = Arc::new(Semaphore::new(options.max_analyses.max(1)));
        AppState {
            inner: Arc::new(Inner {
                options,
                tabs: Mutex::new(HashMap::new()),
                slots,
            }),
        }
    }

    fn options(&self) -> &Options {
        &self.inner.options
    }

    /// A new stop flag for `tab`'s analysis; the tab's previous analysis is stopped.
    fn start_analysis(&self, tab: &str) -> Arc<AtomicBool> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut tabs = self.inner.tabs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = tabs.insert(tab.to_string(), Arc::clone(&stop)) {
            old.store(true, Ordering::Relaxed);
        }
        stop
    }

    /// Forgets `tab`'s analysis if `stop` is still its flag.
    fn end_analysis(&self, tab: &str, stop: &Arc<AtomicBool>) {
        let mut tabs = self.inner.tabs.lock().unwrap_or_else(|e| e.into_inner());
        if tabs.get(tab).is_some_and(|s| Arc::ptr_eq(s, stop)) {
            tabs.remove(tab);
        }
    }

    /// Analyses running or waiting, over all tabs.
    pub fn analyses(&self) -> usize {
        self.inner
            .tabs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}

/// The routes: the embedded page and the JSON API (see `docs/web.md`), with the body
/// limit.
pub fn router(state: AppState) -> Router {
    api::routes()
        .merge(assets::routes())
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(axum::middleware::map_response(api::json_errors))
        .with_state(state)
}

/// Binds the address of `options`, calls `on_listening` with the page's address (the real
/// port when `options.port` is 0), and serves until Ctrl-C.
pub async fn serve(options: Options, on_listening: impl FnOnce(&str)) -> Result<()> {
    let listener = tokio::net::TcpListener::bind((options.host.as_str(), options.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", options.host, options.port))?;
    let address: SocketAddr = listener.local_addr()?;
    on_listening(&format!("http://{address}"));
    if options.tables.is_none() {
        warm_cache();
    }
    let app = router(AppState::new(options));
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the server stopped")
}

/// Builds the small tables of the two standard rule sets into the user's cache in the
/// background, when they are not there yet (see `hoyito::cache`): the board's proofs stand
/// on them, and its analyses, which run under a time limit, never build them themselves.
fn warm_cache() {
    let rules = [hoyito::Rules::default(), hoyito::Rules::hoyito3()];
    let pending: Vec<_> = rules
        .into_iter()
        .filter_map(|r| hoyito::cache::pending(&r, r.total_seeds(), None).map(|dir| (r, dir)))
        .collect();
    let Some((_, dir)) = pending.first() else {
        return;
    };
    eprintln!(
        "building the endgame tables up to {} seeds into the cache {} in the background \
         (once; until then exact values take longer; HOYITO_CACHE=off turns the cache off)",
        hoyito::cache::CACHE_MAX_SEEDS,
        dir.display()
    );
    std::thread::spawn(move || {
        for (r, _) in pending {
            let built = hoyito::cache::small_tables(&r, r.total_seeds(), &hoyito::tables::Quiet);
            if let Err(e) = built {
                eprintln!("warning: the small tables cache: {e:#}");
            }
        }
    });
}

/// [`serve`] on a runtime of its own, for a program that has none.
pub fn serve_blocking(options: Options, on_listening: impl FnOnce(&str)) -> Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?
        .block_on(serve(options, on_listening))
}
