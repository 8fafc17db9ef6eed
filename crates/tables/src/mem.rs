//! Memory hints for the large arrays of a build (huge pages and prefetches: only hints;
//! without them, on other systems, the build is the same, only slower), and the one
//! system-specific file operation of a build, a positional read.

use std::fs::File;
use std::io;

/// Reads exactly `buf.len()` bytes of `file` from `offset`, without moving a shared file
/// cursor (threads read one file at once).
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(file, buf, offset) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        use std::io::{Read as _, Seek as _};
        // Elsewhere: a cloned handle shares the cursor, so reads are serialised.
        static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let mut f = file.try_clone()?;
        f.seek(io::SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// Asks the kernel to back `buf` with huge pages: the sweeps read it at random, and with
/// 4 KiB pages nearly every read of a large layer also misses the TLB.
pub(crate) fn advise_huge_pages<T>(buf: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let end = start + std::mem::size_of_val(buf);
        if end > aligned + HUGE {
            let len = (end - aligned) / HUGE * HUGE;
            // SAFETY: the range lies inside `buf`, which this process owns; madvise with
            // MADV_HUGEPAGE changes no contents, and a failure is harmless.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// Starts loading the cache line of `slice[i]` (if `i` is in range), so that the read that
/// follows later overlaps with other work.
#[inline(always)]
pub(crate) fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(i) {
        // SAFETY: a prefetch is a hint that never faults, and the pointer is valid anyway.
        unsafe {
            core::arch::x86_64::_mm_prefetch(
                x as *const T as *const i8,
                core::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// Bytes free for an unprivileged user on the file system that holds `path` (the nearest
/// existing folder above it), or `None` where this is not known (other systems, errors).
pub fn available_space(path: &std::path::Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let dir = path.ancestors().find(|p| p.is_dir())?;
        let dir = if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        };
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
        // SAFETY: `c` is a valid NUL-terminated path and `st` is written by the call before
        // it is read (only when the call succeeds).
        let st = unsafe {
            if libc::statvfs(c.as_ptr(), st.as_mut_ptr()) != 0 {
                return None;
            }
            st.assume_init()
        };
        Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
