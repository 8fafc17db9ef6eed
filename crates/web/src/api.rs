//! The JSON API (docs/web.md): each handler reads its body as JSON, calls the library on a
//! blocking thread and answers JSON; every error is a 4xx `{"error": {"kind", "message"}}` with the
//! library's message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hoyito::board::{self, BoardView, GameSpec, RulesSpec};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::AppState;

/// An error answer: its status (4xx for a bad request), its kind (the library's
/// [`ErrorKind`](hoyito::ErrorKind) name, or `bad_request` for a request that is not
/// understood) and its message, as `{"error": {"kind", "message"}}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl ApiError {
    /// An error with this status and message, of the kind `bad_request`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            kind: "bad_request",
            message: message.into(),
        }
    }

    /// A bad request: a message (`{:#}`: with its causes).
    pub fn bad(e: impl std::fmt::Display) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, format!("{e:#}"))
    }
}

impl From<anyhow::Error> for ApiError {
    /// The library's error, with its kind: 400, but 409 when the endgame tables are missing
    /// or damaged (the request may be right, the server's files are not) and 503 when the
    /// work was stopped.
    fn from(e: anyhow::Error) -> Self {
        let kind = hoyito::error::kind(&e);
        let status = match kind {
            hoyito::ErrorKind::Tables => StatusCode::CONFLICT,
            hoyito::ErrorKind::Stopped => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError {
            status,
            kind: kind.name(),
            message: format!("{e:#}"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({ "error": { "kind": self.kind, "message": self.message } });
        (self.status, Json(body)).into_response()
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// Makes every 4xx answer JSON, as the handlers' own errors are: those of the layers and
/// of axum (a body over the limit, a method a route does not take) come as text.
pub(crate) async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !status.is_client_error() || is_json {
        return response;
    }
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => {
            format!("the request body is over {} bytes", crate::BODY_LIMIT)
        }
        StatusCode::METHOD_NOT_ALLOWED => {
            "method not allowed: the API takes POST, the analysis stream GET".to_string()
        }
        s => s.canonical_reason().unwrap_or("bad request").to_string(),
    };
    ApiError::new(status, message).into_response()
}

/// The body read as JSON of `T`; a body that is not gives a 400 with serde's message.
pub(crate) fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("bad JSON: {e}")))
}

/// Runs library work on a blocking thread (a long sowing may take a while to replay).
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(ApiError::from),
        Err(e) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the work failed: {e}"),
        )),
    }
}

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/position", post(position))
        .route("/api/play", post(play))
        .route("/api/engine", post(engine))
        .route("/api/book", post(book))
        .route("/api/record/read", post(record_read))
        .route("/api/record/write", post(record_write))
        .route("/api/analysis", get(crate::stream::analysis))
        .route("/api/health", get(|| async { Json(json!({ "ok": true })) }))
}

/// `POST /api/position`: a game spec → its board.
async fn position(body: Bytes) -> ApiResult<BoardView> {
    let spec: GameSpec = parse(&body)?;
    Ok(Json(blocking(move || board::view(&spec)).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayRequest {
    game: GameSpec,
    #[serde(rename = "move")]
    mv: u8,
}

/// `POST /api/play`: a game and a move → the board after it (its `last` is the move lap by
/// lap).
async fn play(body: Bytes) -> ApiResult<BoardView> {
    let PlayRequest { mut game, mv } = parse(&body)?;
    let view = blocking(move || {
        let before = board::view(&game)?;
        if before.over {
            anyhow::bail!("the game is over");
        }
        game.moves.push(mv);
        board::view(&game)
    })
    .await?;
    Ok(Json(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineRequest {
    game: GameSpec,
    /// `1` to `5` or `perfect`.
    level: String,
}

#[derive(Serialize)]
struct EngineAnswer {
    engine: board::EngineMove,
    view: BoardView,
}

/// `POST /api/engine`: a game and a level → the engine's move and the board after it. The
/// perfect player moves with what it has after the server's engine time.
async fn engine(State(state): State<AppState>, body: Bytes) -> ApiResult<EngineAnswer> {
    let EngineRequest { mut game, level } = parse(&body)?;
    board::strength(&level)?;
    let stop = Arc::new(AtomicBool::new(false));
    let timer = {
        let stop = Arc::clone(&stop);
        let ms = state.options().engine_ms;
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            stop.store(true, Ordering::Relaxed);
        })
    };
    let tables = state.options().tables.clone();
    let answer = blocking(move || {
        let engine = board::engine_move(&game, &level, tables.as_deref(), &stop)?;
        game.moves.push(engine.mv);
        let view = board::view(&game)?;
        Ok(EngineAnswer { engine, view })
    })
    .await;
    timer.abort();
    Ok(Json(answer?))
}

/// `POST /api/book`: rules → the opening book two plies deep from their start.
async fn book(body: Bytes) -> ApiResult<Vec<board::BookMove>> {
    let rules: RulesSpec = if body.is_empty() {
        RulesSpec::default()
    } else {
        parse(&body)?
    };
    Ok(Json(
        blocking(move || board::book_tree(&rules.rules()?)).await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordText {
    text: String,
}

/// `POST /api/record/read`: a record's text → its games.
async fn record_read(body: Bytes) -> ApiResult<Vec<board::RecordGame>> {
    let RecordText { text } = parse(&body)?;
    Ok(Json(blocking(move || board::read_games(&text)).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordRequest {
    game: GameSpec,
    #[serde(default = "unknown")]
    south: String,
    #[serde(default = "unknown")]
    north: String,
}

fn unknown() -> String {
    "?".to_string()
}

#[derive(Serialize)]
struct RecordAnswer {
    text: String,
}

/// `POST /api/record/write`: a game and its players → the record's text.
async fn record_write(body: Bytes) -> ApiResult<RecordAnswer> {
    let RecordRequest { game, south, north } = parse(&body)?;
    let text = blocking(move || board::record_text(&game, &south, &north)).await?;
    Ok(Json(RecordAnswer { text }))
}
