/* child_env.h — the environment a child program gets (docs/DESIGN.md rule 13): libhotpath.so put back
 * first in LD_PRELOAD when an explicit environment dropped it, or taken out of it when the user
 * asked for unprofiled children (HOTPATH_NO_CHILDREN=true); and the process image number, which
 * an exec in the same process carries to the next image. */
#ifndef HP_CHILD_ENV_H
#define HP_CHILD_ENV_H

#include <stddef.h>

#define HP_IMAGE_VAR "HOTPATH_IMAGE"

/* What the child's environment takes: `slots` pointers and `bytes` of new strings. */
void hp_child_env_need(char *const envp[], char *const settings[], const char *lib_path,
                       size_t *slots, size_t *bytes);
/* The child's environment into out (room for `slots` pointers, NULL-terminated), its new entries
 * (LD_PRELOAD, the image number) written into buf (`bytes`); the other entries point into envp
 * and settings. settings: the profiler's own HOTPATH_* entries, added where envp lacks them, so
 * profiled children keep the user's settings. image < 0: no image variable (a new process starts
 * at image 0); nor is there one for an unprofiled child. Allocates nothing: it runs in vfork
 * children, which share the parent's memory. */
void hp_child_env(char **out, char *buf, char *const envp[], char *const settings[],
                  const char *lib_path, int profile_children, long image);

#endif
