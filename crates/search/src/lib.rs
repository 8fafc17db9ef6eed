//! Search for Hoyito: best move and value of a position.
