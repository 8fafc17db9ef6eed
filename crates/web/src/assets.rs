//! The page: its files compiled into the binary (the HTML, three JavaScript modules, the
//! style sheet and the icon). Nothing else is served (no file is ever read from disk, so no
//! path can reach outside them).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::AppState;

const INDEX: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const VIEW: &str = include_str!("../assets/view.js");
const SERVER: &str = include_str!("../assets/server.js");
const STYLE: &str = include_str!("../assets/style.css");
const ICON: &str = include_str!("../assets/favicon.svg");

fn asset(body: &'static str, kind: &'static str) -> Response {
    let mut r = (StatusCode::OK, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/",
            get(|| async { asset(INDEX, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/view.js",
            get(|| async { asset(VIEW, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/server.js",
            get(|| async { asset(SERVER, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/favicon.svg",
            get(|| async { asset(ICON, "image/svg+xml") }),
        )
        .route(
            "/style.css",
            get(|| async { asset(STYLE, "text/css; charset=utf-8") }),
        )
        .fallback(|| async {
            crate::ApiError::new(
                StatusCode::NOT_FOUND,
                "not found: the page is /, the API under /api/",
            )
        })
}
