/* Makes FalkorDB 4.16's start-up race certain (tests/security/test_start_race.py).

   The module starts its cron thread, whose finished-query task takes and releases the
   globals' read-write lock, before it initialises that lock (Globals_Init, at the end of
   the module's load). Loaded into redis-server with LD_PRELOAD, during the process's first
   seconds this releases a read-write lock 400 ms late on any thread but the main one, and
   initialises one 100 ms late on the main one, so the task's read lock is held while the
   lock is initialised again: the first graph created then waits on it for ever. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct timespec started;

__attribute__((constructor)) static void note_start(void) {
    clock_gettime(CLOCK_MONOTONIC, &started);
}

static int early(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - started.tv_sec) + (now.tv_nsec - started.tv_nsec) / 1e9 < 3.0;
}

static int on_main_thread(void) { return getpid() == (pid_t)syscall(SYS_gettid); }

int pthread_rwlock_unlock(pthread_rwlock_t *lock) {
    static int (*real)(pthread_rwlock_t *);
    if (!real) real = dlsym(RTLD_NEXT, "pthread_rwlock_unlock");
    if (!on_main_thread() && early()) usleep(400000);
    return real(lock);
}

int pthread_rwlock_init(pthread_rwlock_t *lock, const pthread_rwlockattr_t *attr) {
    static int (*real)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
    if (!real) real = dlsym(RTLD_NEXT, "pthread_rwlock_init");
    if (on_main_thread() && early()) usleep(100000);
    return real(lock, attr);
}
