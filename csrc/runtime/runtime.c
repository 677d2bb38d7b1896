/* runtime.c: initialisation, rank and thread discovery. */
#define _GNU_SOURCE
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
 * A rank's share of the node is its online CPUs over the ranks on the node.  MPI launchers bind
 * ranks to cores of their own choosing: Open MPI binds each of up to two ranks to one core, so
 * `mpirun -np 1` on a laptop would run every thread of the rank on core 0 (and `mpirun -np 2` on
 * 16 cores, eight threads per rank on one core each).  When the launcher's mask is narrower than
 * the share, the process takes the local_rank-th block of `share` online CPUs instead, for all its
 * threads (BLAS's pool exists already: each task of /proc/self/task is moved).  CUPYNUM_BIND=
 * launcher keeps the launcher's binding.  The default thread count is the cores in the mask, so
 * a `taskset` or a cgroup is respected too. */
static int online_cpus(int *cpu, int max)
{
    int n = 0;
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    if (f) {
        int a, b;
        char sep;
        while (n < max && fscanf(f, "%d", &a) == 1) {
            b = a;
            if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
                if (fscanf(f, "%d", &b) != 1) break;
                if (fscanf(f, "%c", &sep) != 1) sep = '\n';
            }
            for (int c = a; c <= b && n < max; c++) cpu[n++] = c;
            if (sep != ',') break;
        }
        fclose(f);
    }
    if (n == 0) {
        long k = sysconf(_SC_NPROCESSORS_ONLN);
        for (int c = 0; c < k && n < max; c++) cpu[n++] = c;
    }
    return n;
}

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

static int place_rank(int local_ranks, int local_rank, bool launched)
{
    static int cpu[CPU_SETSIZE];
    const int ncpu = online_cpus(cpu, CPU_SETSIZE);
    int share = ncpu / (local_ranks > 0 ? local_ranks : 1);
    if (share < 1) share = 1;
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return share;
    int have = CPU_COUNT(&mask);
    const char *keep = getenv("CUPYNUM_BIND");
    if (launched && have < share && !(keep && strcmp(keep, "launcher") == 0) &&
        (int64_t)(local_rank + 1) * share <= ncpu) {
        cpu_set_t wide;
        CPU_ZERO(&wide);
        for (int i = 0; i < share; i++) CPU_SET(cpu[local_rank * share + i], &wide);
        set_process_affinity(&wide);
        have = share;
    }
    return have < share ? have : share;
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
