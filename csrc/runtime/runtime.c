/* runtime.c: initialisation, rank and thread discovery. */
#include "runtime.h"

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

enum cpn_status cpn_runtime_init(void)
{
    if (initialised) return CPN_OK;
    initialised = 1;
    int local_ranks = 1, local_rank = 0;
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
    /* Threads: the cores this rank may use (cores on the node / ranks on the node). */
    const char *env = getenv("CUPYNUM_THREADS");
    int threads = env ? atoi(env) : 0;
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = (int)(cores / (local_ranks > 0 ? local_ranks : 1));
    }
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
