/* runtime.c: initialisation, rank and thread discovery. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "comm.h"
#include "cpn_config.h"
#include "kernels.h"
#include "partition.h"
#include "queue.h"
#include "vmath.h"
#if CPN_HAVE_MPI
#include <mpi.h>
#endif

static int initialised, rank, ranks = 1, mpi_active;

#if CPN_HAVE_MPI
static int mpi_owned;

static bool launched_by_mpi(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return true;
    return false;
}
#endif

/* ---- which cores a rank computes on ---------------------------------------------------------
 *
 * A rank's share of the node is the CPUs its job may use over the ranks on the node.  MPI
 * launchers bind ranks to cores of their own choosing: Open MPI binds each of up to two ranks to
 * one core, so `mpirun -np 1` on a laptop would run every thread of the rank on core 0 (and
 * `mpirun -np 2` on 16 cores, eight threads per rank on one core each).  The CPUs the job may use
 * are the launcher's own: the mask of the rank's parent (mpirun's daemon, Slurm's step daemon),
 * which a `taskset mpirun` or a cgroup narrows too.  When the rank's mask is narrower than its
 * share, the process takes the local_rank-th block of `share` of those CPUs, ordered by package and
 * core so that a block holds whole cores, for all its threads (BLAS's pool exists already: each
 * task of /proc/self/task is moved), and runs as many threads as the kernel then grants.
 * CUPYNUM_BIND=launcher keeps the launcher's binding.  A plain process runs as many threads as its
 * mask has CPUs, so a `taskset` is respected. */
static void set_process_affinity(const cpu_set_t *set)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        sched_setaffinity(0, sizeof *set, set);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') sched_setaffinity((pid_t)atoi(e->d_name), sizeof *set, set);
    closedir(d);
}

static long topology_id(int cpu, const char *what)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

struct cpu_key { long package, core; int cpu; };

static int cmp_cpu_key(const void *a, const void *b)
{
    const struct cpu_key *x = a, *y = b;
    if (x->package != y->package) return x->package < y->package ? -1 : 1;
    if (x->core != y->core) return x->core < y->core ? -1 : 1;
    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int place_rank(int local_ranks, int local_rank, bool launched)
{
    cpu_set_t mask, allowed;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return 1;
    const int have = CPU_COUNT(&mask);
    if (!launched) return have > 0 ? have : 1;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(getppid(), sizeof allowed, &allowed) != 0) allowed = mask;
    const int nallowed = CPU_COUNT(&allowed);
    int share = nallowed / (local_ranks > 0 ? local_ranks : 1);
    if (share < 1) share = 1;
    const char *keep = getenv("CUPYNUM_BIND");
    if (have >= share || (keep && strcmp(keep, "launcher") == 0) || local_rank >= local_ranks ||
        (int64_t)(local_rank + 1) * share > nallowed)
        return have < share ? have : share;
    static struct cpu_key key[CPU_SETSIZE];
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < nallowed; c++)
        if (CPU_ISSET(c, &allowed)) key[n++] = (struct cpu_key){topology_id(c, "physical_package_id"),
                                                                 topology_id(c, "core_id"), c};
    qsort(key, (size_t)n, sizeof *key, cmp_cpu_key);
    cpu_set_t wide;
    CPU_ZERO(&wide);
    for (int i = 0; i < share; i++) CPU_SET(key[local_rank * share + i].cpu, &wide);
    set_process_affinity(&wide);
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return 1;
    const int now = CPU_COUNT(&mask);   /* what the kernel granted (a cgroup may narrow it) */
    return now < share ? (now > 0 ? now : 1) : share;
}

enum cpn_status cpn_runtime_init(void)
{
    if (initialised) return CPN_OK;
    initialised = 1;
    int local_ranks = 1, local_rank = 0;
    bool launched = false;
#if CPN_HAVE_MPI
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag && launched_by_mpi()) {
        int provided;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return cpn_error(CPN_ERR_COMM, "MPI_Init_thread failed");
        mpi_owned = 1;
        flag = 1;
    }
    if (flag) {
        mpi_active = 1;
        launched = true;
        /* MPI errors come back as return codes, which CPN_MPI_TRY turns into exceptions carrying
         * MPI's error string, instead of killing the job inside the library. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &local_ranks);
        MPI_Comm_rank(node, &local_rank);
        MPI_Comm_free(&node);
        if (ranks > 1) cpn_comm_init();
    }
#endif
    const char *mt = getenv("CUPYNUM_MIN_TILE");
    cpn_partition_configure(rank, ranks, mt ? atoll(mt) : 0);
    /* Threads: the cores this rank may use (its share of the node, within its mask). */
    const int cores = place_rank(local_ranks, local_rank, launched);
    const char *env = getenv("CUPYNUM_THREADS");
    int threads = env ? atoi(env) : 0;
    if (threads <= 0) threads = cores;
    cpn_kernel_set_threads(threads > 0 ? threads : 1);
    /* One device per rank: the node-local rank modulo the devices visible. */
    return cpn_backend_select(local_rank);
}

void cpn_runtime_finalize(void)
{
    cpn_queue_flush();
    cpn_backend_active()->sync();
#if CPN_HAVE_MPI
    /* A rank that ends while others still need it must not hang them (comm.h). */
    static int left;
    if (mpi_active && ranks > 1 && !left) {
        int fin = 0;
        MPI_Finalized(&fin);
        left = 1;
        if (!fin) cpn_comm_leave();
    }
    if (mpi_owned) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Finalize();
        mpi_owned = 0;
    }
#endif
}

int cpn_runtime_rank(void) { return rank; }
int cpn_runtime_ranks(void) { return ranks; }
int cpn_runtime_threads(void) { return cpn_kernel_threads(); }
bool cpn_runtime_have_mpi(void) { return CPN_HAVE_MPI; }
bool cpn_runtime_mpi_active(void) { return mpi_active; }
bool cpn_runtime_have_cuda(void) { return CPN_HAVE_CUDA; }

const char *cpn_runtime_vmath(void) { return cpn_vmath_backend(); }

const char *cpn_runtime_blas(void) { return cpn_kernel_blas_name(); }
const char *cpn_runtime_sort(void) { return cpn_kernel_sort_name(); }
const char *cpn_runtime_fft(void) { return cpn_kernel_fft_name(); }
long long cpn_runtime_parallel_min(void) { return (long long)cpn_kernel_parallel_min(); }

int cpn_runtime_vmath_kernel(const char *name, int *nin, void (**f64)(void), void (**f32)(void))
{
    return cpn_vmath_kernel(name, nin, f64, f32);
}

int cpn_runtime_random_simd(int level) { return cpn_kernel_random_set_simd(level); }
int cpn_runtime_argreduce_simd(int level) { return cpn_kernel_argreduce_set_simd(level); }
