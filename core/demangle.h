/* demangle.h — C++ and Rust names made readable (`_ZN2ns3Hot4spinEi` → `ns::Hot::spin(int)`,
 * `_RNvCs1234_5crate4main` → `crate::main`) for reports. libiberty's callback demanglers
 * (cplus_demangle_v3_callback, rust_demangle_callback, linked in statically) work on the stack
 * only: no malloc, no lock, so it is safe where the report may not touch the program's
 * heap (a report written while a thread that took a signal holds the malloc lock). */
#ifndef HP_DEMANGLE_H
#define HP_DEMANGLE_H

#include <stddef.h>

/* The demangled form of name into out (cut to size); 1, or 0 (out untouched) when name is not a
 * mangled C++ or Rust name or is too long to demangle on the stack. */
int hp_demangle(const char *name, char *out, size_t size);

#endif
