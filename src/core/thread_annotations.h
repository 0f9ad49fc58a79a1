// Clang's thread-safety analysis (-Wthread-safety), spelled as macros: a field says
// which mutex guards it, a function which mutex it needs held or must not hold, and the
// compiler checks every access against that. Other compilers read nothing here: each
// macro expands to nothing, and GCC builds the same code unchecked.
#pragma once

#if defined(__clang__)
#define LICENSED_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define LICENSED_THREAD_ANNOTATION(x)
#endif

// A type that is a lock (a mutex): `name` appears in the analysis' messages.
#define CAPABILITY(name) LICENSED_THREAD_ANNOTATION(capability(name))
// A type that holds a lock from its construction to its destruction (a scoped lock).
#define SCOPED_CAPABILITY LICENSED_THREAD_ANNOTATION(scoped_lockable)

// Read or written only with `mu` held.
#define GUARDED_BY(mu) LICENSED_THREAD_ANNOTATION(guarded_by(mu))
// The pointed-to data is read or written only with `mu` held (the pointer itself is not).
#define PT_GUARDED_BY(mu) LICENSED_THREAD_ANNOTATION(pt_guarded_by(mu))

// The caller must hold these when it calls.
#define REQUIRES(...) LICENSED_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// The caller must not hold these when it calls (the function takes them itself).
#define EXCLUDES(...) LICENSED_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// The function takes (ACQUIRE) or gives back (RELEASE) these; with no argument, the
// object it is called on.
#define ACQUIRE(...) LICENSED_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) LICENSED_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// Takes the lock when it returns `result` (try_lock).
#define TRY_ACQUIRE(...) LICENSED_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))

// For the rare function the analysis cannot follow; say why where it is used.
#define NO_THREAD_SAFETY_ANALYSIS LICENSED_THREAD_ANNOTATION(no_thread_safety_analysis)
