/* rtc.c: NVRTC through dlopen, and the two-level cache of compiled kernels (see rtc.h). */
#include "rtc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>

#include "alloc.h"
#include "codegen.h"

/* ---- the library ------------------------------------------------------------------------------ */

static struct {
    int tried;
    void *lib;
    const char *why;
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*errstr)(nvrtcResult);
    int major, minor;
} rtc;

static bool load(void)
{
    if (rtc.tried) return rtc.lib != NULL;
    rtc.tried = 1;
    static const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                  "/usr/local/cuda/lib64/libnvrtc.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !rtc.lib; i++)
        rtc.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!rtc.lib) {
        rtc.why = "libnvrtc (the CUDA toolkit's run-time compiler) was not found";
        return false;
    }
#define SYM(field, name)                                                                    \
    if (!(*(void **)&rtc.field = dlsym(rtc.lib, name))) {                                   \
        rtc.why = "libnvrtc lacks " name;                                                   \
        dlclose(rtc.lib);                                                                   \
        rtc.lib = NULL;                                                                     \
        return false;                                                                       \
    }
    SYM(version, "nvrtcVersion")
    SYM(create, "nvrtcCreateProgram")
    SYM(compile, "nvrtcCompileProgram")
    SYM(log_size, "nvrtcGetProgramLogSize")
    SYM(log, "nvrtcGetProgramLog")
    SYM(cubin_size, "nvrtcGetCUBINSize")
    SYM(cubin, "nvrtcGetCUBIN")
    SYM(ptx_size, "nvrtcGetPTXSize")
    SYM(ptx, "nvrtcGetPTX")
    SYM(destroy, "nvrtcDestroyProgram")
    SYM(errstr, "nvrtcGetErrorString")
#undef SYM
    rtc.version(&rtc.major, &rtc.minor);
    return true;
}

bool cpn_nvrtc_available(const char **why)
{
    bool ok = load();
    if (!ok && why) *why = rtc.why;
    return ok;
}

/* ---- the caches ------------------------------------------------------------------------------- */

struct entry {
    struct entry *next;
    char key[40];
    size_t size;
    char image[];
};

static struct entry *entries;
static struct cpn_nvrtc_stats stats;
static char cache_dir[1024];
static int cache_dir_set;

void cpn_nvrtc_stats(struct cpn_nvrtc_stats *out) { *out = stats; }

void cpn_nvrtc_forget(void)
{
    while (entries) {
        struct entry *e = entries;
        entries = e->next;
        cpn_free(e);
    }
    cache_dir_set = 0;
}

const char *cpn_nvrtc_cache_dir(void)
{
    if (cache_dir_set) return cache_dir;
    cache_dir_set = 1;
    const char *env = getenv("CUPYNUM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env) snprintf(cache_dir, sizeof cache_dir, "%s", env);
    else if (xdg && *xdg) snprintf(cache_dir, sizeof cache_dir, "%s/cupynum", xdg);
    else if (home && *home) snprintf(cache_dir, sizeof cache_dir, "%s/.cache/cupynum", home);
    else cache_dir[0] = 0;
    return cache_dir;
}

/* mkdir -p; false when the directory cannot be made (the disk cache is then skipped). */
static bool make_dirs(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return false;
        *p = '/';
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

static struct entry *remember(const char *key, const void *image, size_t size)
{
    struct entry *e = cpn_alloc(sizeof *e + size);
    if (!e) return NULL;
    snprintf(e->key, sizeof e->key, "%s", key);
    e->size = size;
    memcpy(e->image, image, size);
    e->next = entries;
    entries = e;
    return e;
}

static struct entry *disk_read(const char *key)
{
    const char *dir = cpn_nvrtc_cache_dir();
    if (!*dir) return NULL;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, key);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct entry *e = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0) {
            char *buf = malloc((size_t)n);
            if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) e = remember(key, buf, (size_t)n);
            free(buf);
        }
    }
    fclose(f);
    return e;
}

static void disk_write(const char *key, const void *image, size_t size)
{
    const char *dir = cpn_nvrtc_cache_dir();
    if (!*dir || !make_dirs(dir)) return;
    char path[1200], tmp[1300];
    snprintf(path, sizeof path, "%s/%s", dir, key);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    bool ok = fwrite(image, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

/* ---- compiling -------------------------------------------------------------------------------- */

enum cpn_status cpn_nvrtc_compile(const char *src, int arch, bool ptx, const void **image, size_t *size)
{
    const char *why;
    if (!cpn_nvrtc_available(&why)) return cpn_error(CPN_ERR_DEVICE, "cupynum: %s", why);
    char archopt[64];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", arch);
    /* No FMA contraction: a*b+c rounds twice, as on the CPU, so element-wise arithmetic (and
     * the uniform draws) agree bit for bit. */
    const char *opts[] = {archopt, "--std=c++17", "--fmad=false", "-default-device"};
    const int nopt = (int)(sizeof opts / sizeof opts[0]);

    /* key: source + options + NVRTC version + the embedded headers (another cupynum's scalar.h
     * or devargs.h must not load this one's cached kernels) */
    static char headers[17];
    if (!headers[0]) {
        uint64_t h = 0;
        for (int i = 0; i < cpn_cuda_header_count; i++) {
            char part[17];
            cpn_cuda_codegen_key(cpn_cuda_header_sources[i], part);
            h = h * 1099511628211ull ^ strtoull(part, NULL, 16);
        }
        snprintf(headers, sizeof headers, "%016llx", (unsigned long long)h);
    }
    size_t srclen = strlen(src);
    char *keysrc = malloc(srclen + 256);
    if (!keysrc) return cpn_error(CPN_ERR_NOMEM, "cupynum: out of memory");
    snprintf(keysrc, srclen + 256, "%s\n// %s --std=c++17 --fmad=false nvrtc %d.%d headers %s\n", src,
             archopt, rtc.major, rtc.minor, headers);
    char hash[17], key[40];
    cpn_cuda_codegen_key(keysrc, hash);
    free(keysrc);
    snprintf(key, sizeof key, "%s.%s%d", hash, ptx ? "ptx" : "sm", arch);

    for (struct entry *e = entries; e; e = e->next)
        if (!strcmp(e->key, key)) {
            stats.memory_hits++;
            *image = e->image;
            *size = e->size;
            return CPN_OK;
        }
    struct entry *e = disk_read(key);
    if (e) {
        stats.disk_hits++;
        *image = e->image;
        *size = e->size;
        return CPN_OK;
    }

    nvrtcProgram prog;
    nvrtcResult r = rtc.create(&prog, src, "cpn_kernel.cu", cpn_cuda_header_count,
                               cpn_cuda_header_sources, cpn_cuda_header_names);
    if (r != NVRTC_SUCCESS) return cpn_error(CPN_ERR_DEVICE, "cupynum: nvrtcCreateProgram: %s", rtc.errstr(r));
    stats.compiles++;
    r = rtc.compile(prog, nopt, opts);
    if (r != NVRTC_SUCCESS) {
        size_t ln = 0;
        rtc.log_size(prog, &ln);
        char *log = malloc(ln + 1);
        if (log) {
            log[0] = 0;
            rtc.log(prog, log);
            log[ln] = 0;
        }
        cpn_error(CPN_ERR_DEVICE, "cupynum: NVRTC failed to compile a generated kernel (%s):\n%s\n%s",
                  rtc.errstr(r), log ? log : "", src);
        free(log);
        rtc.destroy(&prog);
        return CPN_ERR_DEVICE;
    }
    size_t n = 0;
    r = ptx ? rtc.ptx_size(prog, &n) : rtc.cubin_size(prog, &n);
    char *out = r == NVRTC_SUCCESS ? malloc(n ? n : 1) : NULL;
    if (out) r = ptx ? rtc.ptx(prog, out) : rtc.cubin(prog, out);
    rtc.destroy(&prog);
    if (!out || r != NVRTC_SUCCESS) {
        free(out);
        return cpn_error(CPN_ERR_DEVICE, "cupynum: NVRTC produced no image: %s", rtc.errstr(r));
    }
    e = remember(key, out, n);
    if (e) disk_write(key, out, n);
    free(out);
    if (!e) return CPN_ERR_NOMEM;
    *image = e->image;
    *size = e->size;
    return CPN_OK;
}
