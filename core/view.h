/* view.h — what a view is to the core, the process-wide hooks and the renderers: one descriptor
 * per view (views/NAME/NAME_view.c), listed once, in report order, in views/list.h. The real
 * functions' lookup, start-up, threads starting and ending, fork, the sampler's passes
 * and the report loop over that list; none of them names a view. Every step may be NULL. */
#ifndef HP_VIEW_H
#define HP_VIEW_H

#include <signal.h>
#include <stdint.h>

struct hp_thread;
struct hp_counts;
struct hp_section;
struct hp_settings_table;
struct hp_json;

/* The process's signals, kept by process/signals.c, for a view that times with a signal of its
 * own: claim installs fn on a free real-time signal and returns it (-1 with none; SA_ONSTACK if
 * onstack); when the program later takes that signal for itself the claim moves to another free
 * one (moved, with the new number) or ends (lost). set_default gives a signal its default action
 * (a signal there that is no timer's, while the program left it at its default). */
struct hp_view_signals {
    int (*claim)(void (*fn)(int, siginfo_t *, void *), int onstack, void (*moved)(int signo),
                 void (*lost)(void));
    void (*set_default)(int sig);
};

/* What a view's start is given: the main thread's state (the guard raised) and the signals. */
struct hp_view_start {
    struct hp_thread *self;
    const struct hp_view_signals *signals;
};

struct hp_view {
    const char *name;                              /* its folder under views/ */
    /* Look up the real functions its hooks call: from hp_resolve, before malloc's (which marks
     * every lookup done), and so possibly before the constructor. */
    void (*resolve)(void);
    /* In the constructor, after the settings, before the sampler starts. */
    void (*start)(const struct hp_view_start *s);
    /* On a thread started through pthread_create, as it starts and as it ends (its own thread). */
    void (*thread_start)(struct hp_thread *t);
    void (*thread_end)(struct hp_thread *t);
    /* What the calling thread keeps of the view's data in thread-local memory goes into the view
     * now: the thread ends, its image writes a report, a signal may end the process. */
    void (*flush)(void);
    /* In a fork child, on its one thread, before the child's sampler starts: what was the
     * parent's goes (the child profiles itself afresh). */
    void (*fork_child)(struct hp_thread *self);
    /* On the sampler's thread, at the start of every pass. */
    void (*sampler_pass)(void);
    /* Live bytes by allocating thread, for the time series' trend (core/history.h), from the
     * view that samples allocations: whether it knows them now, and one thread's. */
    int (*live_known)(void);
    uint64_t (*thread_live)(uint32_t thread_index);
    /* A thread's JSON row in the threads view: this view's keys of the thread's counters (its
     * fields in core/registry.h struct hp_counts), and what it is blocked on when this view
     * owns that (a lock). */
    void (*thread_json)(struct hp_json *j, const struct hp_counts *c);
    /* Its HOTPATH_* settings (core/settings.h), parsed at start before any step; NULL if none. */
    const struct hp_settings_table *settings;
    /* Its sections of the report, in report order (report/section.h). */
    const struct hp_section *const *sections;
    unsigned nsections;
};

/* The list, in report order (views/views.c, from views/list.h; the macOS build's has fewer). */
extern const struct hp_view *const hp_views[];
extern const unsigned hp_view_count;

#define HP_FOR_EACH_VIEW(v)                                                                      \
    for (const struct hp_view *const *v##_at = hp_views, *v;                                     \
         v##_at < hp_views + hp_view_count && ((v = *v##_at), 1); v##_at++)

/* Each view's step, where it has one: HP_VIEWS_STEP(fork_child, self). */
#define HP_VIEWS_STEP(step, ...)                                                                 \
    do {                                                                                         \
        HP_FOR_EACH_VIEW(v_)                                                                     \
            if (v_->step) v_->step(__VA_ARGS__);                                                 \
    } while (0)
#define HP_VIEWS_STEP0(step)                                                                     \
    do {                                                                                         \
        HP_FOR_EACH_VIEW(v_)                                                                     \
            if (v_->step) v_->step();                                                            \
    } while (0)

#endif
