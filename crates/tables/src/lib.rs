//! Endgame tables for 2x6 Hoyito.
