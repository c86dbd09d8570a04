/* child_env.h — the environment a child program gets (DESIGN.md rule 13): libhotpath.so put back
 * first in LD_PRELOAD when an explicit environment dropped it, or taken out of it when the user
 * asked for unprofiled children (HOTPATH_NO_CHILDREN=true); and the process image number, which
 * an exec in the same process carries to the next image. */
#ifndef HP_CHILD_ENV_H
#define HP_CHILD_ENV_H

#define HP_IMAGE_VAR "HOTPATH_IMAGE"

/* A new environment array (hp_alloc'd, strings included; free with hp_child_env_free).
 * settings: the profiler's own HOTPATH_* entries, added where envp lacks them, so profiled
 * children keep the user's settings. image < 0: no image variable (a new process starts at
 * image 0). NULL if out of memory. */
char **hp_child_env(char *const envp[], char *const settings[], const char *lib_path,
                    int profile_children, long image);
void hp_child_env_free(char **env);

#endif
