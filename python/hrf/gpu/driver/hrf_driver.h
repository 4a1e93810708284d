// hrf's standalone driver: runs one test's kernels (the .cu that includes
// this file, written by `hrf run --emit-cuda`) without Python, and prints a
// litmus7 log (`Histogram (N states)`, `Observation NAME ...`) that hrf and
// herd's mcompare7 read:
//
//   nvcc -O2 -arch=native -o MP MP.cu && ./MP launches=1000 stress=1
//
// Arguments are NAME=VALUE: `launches`, `seconds` (run this long instead),
// `seed`, and every incantation of a setting file (`hrf run --tune --save`)
// by its name in the file. It does what `hrf run` does with CuPy (the
// placements, the per-launch parameters, the tally on the device, the
// histogram read once) but the code check: review the SASS with
// `cuobjdump -sass`. Exit 0, 1 when a thread of an instance did not run (a
// harness fault), 2 on bad arguments or a CUDA error.
//
// The test's .cu defines the kernels, their parameters (P_*), the host
// tables (HRF_NAME, HRF_DOMAIN, ...) and the setting to start from
// (HRF_SETTING) before it includes this file. With HRF_EMULATE (and hrf_emulate.h) the same source
// runs on a CPU, for hrf's tests of this driver.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#ifndef HRF_EMULATE
#define HRF_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
#endif

#define HRF_WARP 32u
#define HRF_BATCH 64u               // launches whose parameters go to the device together
#define HRF_OVERFLOW_CAP (1u << 16) // outcomes outside the domains, recorded one by one

static const char *const HRF_PATTERNS[] = {"st-st", "st-ld", "ld-st", "ld-ld"};

static void hrf_fail(const char *what) {
    std::fprintf(stderr, "%s: %s\n", HRF_NAME, what);
    std::exit(2);
}

static void hrf_cuda(cudaError_t e, const char *call) {
    if (e != cudaSuccess) {
        std::string m = std::string("CUDA error in ") + call + ": " + cudaGetErrorString(e);
        hrf_fail(m.c_str());
    }
}
#define HRF_CUDA(call) hrf_cuda((call), #call)

// ------------------------------------------------------------ the setting
// hrf's Setting (gpu/setting.py), field for field in its order: HRF_SETTING,
// written by `hrf run --emit-cuda [--setting FILE]`, is where a run starts
struct HrfSetting {
    unsigned block, test_warps, lanes, stress, stress_pattern, stress_words, stress_iters, bank_conflicts, sync,
        randomise, shuffle, pad, spin, blocks;
};

struct HrfOption {
    const char *name;
    unsigned *field;
    int boolean;
};

static std::vector<HrfOption> hrf_options(HrfSetting &s) {
    return {
        {"block", &s.block, 0},          {"test_warps", &s.test_warps, 0}, {"lanes", &s.lanes, 0},
        {"stress", &s.stress, 1},        {"stress_pattern", &s.stress_pattern, 0},
        {"stress_words", &s.stress_words, 0}, {"stress_iters", &s.stress_iters, 0},
        {"bank_conflicts", &s.bank_conflicts, 1}, {"sync", &s.sync, 1},
        {"randomise", &s.randomise, 1},  {"shuffle", &s.shuffle, 1},      {"pad", &s.pad, 0},
        {"spin", &s.spin, 0},            {"blocks", &s.blocks, 0},
    };
}

static int hrf_pow2(unsigned x) { return x && !(x & (x - 1)); }

// the checks of hrf's Setting, with its words
static void hrf_check_setting(const HrfSetting &s) {
    char m[200];
    const unsigned w = s.block / 32;
    if (s.block < 32 || s.block % 32 || !hrf_pow2(w) || s.block > 1024) {
        std::snprintf(m, sizeof m, "incantation setting: block %u: a power of two times 32, at most 1024", s.block);
        hrf_fail(m);
    }
    if (s.test_warps < 1 || s.test_warps > w) {
        std::snprintf(m, sizeof m, "incantation setting: test_warps %u: 1 to %u", s.test_warps, w);
        hrf_fail(m);
    }
    if (s.lanes < 1 || s.lanes > 32) {
        std::snprintf(m, sizeof m, "incantation setting: lanes %u: 1 to 32", s.lanes);
        hrf_fail(m);
    }
    if (s.stress_words < 32 || !hrf_pow2(s.stress_words) || s.stress_words > (1u << 26)) {
        std::snprintf(m, sizeof m, "incantation setting: stress_words %u: a power of two, 32 to 2^26", s.stress_words);
        hrf_fail(m);
    }
    if (s.stress_iters > (1u << 20)) {
        std::snprintf(m, sizeof m, "incantation setting: stress_iters %u: 0 to 2^20", s.stress_iters);
        hrf_fail(m);
    }
    if (s.pad < 1 || s.pad > 1024) {
        std::snprintf(m, sizeof m, "incantation setting: pad %u: 1 to 1024 words", s.pad);
        hrf_fail(m);
    }
    if (s.spin < 1 || s.spin > (1u << 30)) {
        std::snprintf(m, sizeof m, "incantation setting: spin %u: 1 to 2^30", s.spin);
        hrf_fail(m);
    }
}

static std::string hrf_describe(const HrfSetting &s) {
    char b[200];
    std::snprintf(b, sizeof b, "block %u, test warps %u, lanes %u, ", s.block, s.test_warps, s.lanes);
    std::string out = b;
    if (s.stress) {
        std::snprintf(b, sizeof b, "stress %s x%u over %u words", HRF_PATTERNS[s.stress_pattern], s.stress_iters,
                      s.stress_words);
        out += b;
    } else {
        out += "no stress";
    }
    if (s.bank_conflicts) out += ", bank conflicts";
    if (s.sync) out += ", sync";
    if (s.randomise) out += ", randomise";
    if (s.shuffle) out += ", shuffle";
    std::snprintf(b, sizeof b, ", pad %u", s.pad);
    return out + b;
}

static unsigned long long hrf_whole(const char *name, const char *v) {
    char *end = nullptr;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (!*v || *end || *v == '-') {
        std::string m = std::string(name) + "=" + v + ": a whole number";
        hrf_fail(m.c_str());
    }
    return x;
}

struct HrfArgs {
    HrfSetting s = HRF_SETTING;
    unsigned long long launches = 100, seed = 1;
    double seconds = 0;
};

static HrfArgs hrf_args(int argc, char **argv) {
    HrfArgs a;
    a.s = HRF_SETTING;
    std::vector<HrfOption> opts = hrf_options(a.s);
    for (int k = 1; k < argc; k++) {
        const char *eq = std::strchr(argv[k], '=');
        std::string name = eq ? std::string(argv[k], eq - argv[k]) : std::string(argv[k]);
        const char *v = eq ? eq + 1 : "";
        if (name == "launches" && eq) {
            a.launches = hrf_whole("launches", v);
            if (!a.launches) hrf_fail("launches=0: at least 1");
            continue;
        }
        if (name == "seed" && eq) {
            a.seed = hrf_whole("seed", v);
            continue;
        }
        if (name == "seconds" && eq) {
            char *end = nullptr;
            a.seconds = std::strtod(v, &end);
            if (!*v || *end || !(a.seconds > 0)) hrf_fail("seconds: a positive number");
            continue;
        }
        auto o = std::find_if(opts.begin(), opts.end(), [&](const HrfOption &x) { return name == x.name; });
        if (o == opts.end() || !eq) {
            std::string known = "launches, seconds, seed";
            for (auto &x : opts) known += std::string(", ") + x.name;
            std::string m = "unknown argument " + std::string(argv[k]) + " (NAME=VALUE, the names: " + known + ")";
            hrf_fail(m.c_str());
        }
        if (name == "stress_pattern") {
            unsigned p = 0;
            while (p < 4 && std::strcmp(v, HRF_PATTERNS[p])) p++;
            if (p == 4) hrf_fail("stress_pattern: one of st-st, st-ld, ld-st, ld-ld");
            *o->field = p;
        } else if (o->boolean) {
            if (!std::strcmp(v, "1") || !std::strcmp(v, "true")) *o->field = 1;
            else if (!std::strcmp(v, "0") || !std::strcmp(v, "false")) *o->field = 0;
            else {
                std::string m = name + "=" + v + ": 0, 1, true or false";
                hrf_fail(m.c_str());
            }
        } else {
            unsigned long long x = hrf_whole(name.c_str(), v);
            if (x > 0xffffffffull) hrf_fail((name + ": too large").c_str());
            *o->field = (unsigned)x;
        }
    }
    hrf_check_setting(a.s);
    return a;
}

// ------------------------------------------------------------ placement (gpu/placement.py)
struct HrfGeometry {
    unsigned long long blocks, warps, test_warps, per_warp, per_block, pad, region, units;
    unsigned long long instances() const { return blocks / HRF_K * per_block; }
};
static unsigned long long hrf_min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static unsigned long long hrf_max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static void hrf_failf(const char *format, unsigned a, unsigned b = 0) {
    char m[300];
    std::snprintf(m, sizeof m, format, a, b);
    hrf_fail(m);
}
// the launch's geometry, written beside the test's tables (placement.py's GEOMETRY, as C)
static HrfGeometry hrf_geometry(unsigned long long blocks, const HrfSetting &s);
// one launch's parameters from its geometry, setting and placement, written beside them too
static void hrf_param_values(u32 *P, const HrfGeometry &g, const HrfSetting &s, u64 n, u64 ba, u64 bc, u64 wa, u64 wc,
                             u64 la, u64 lc);

// splitmix64: the placements' random numbers (not Python's: a run is random either way)
static unsigned long long hrf_state;
static unsigned long long hrf_random() {
    unsigned long long z = (hrf_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static unsigned long long hrf_below(unsigned long long n) { return n ? hrf_random() % n : 0; }
static unsigned long long hrf_gcd(unsigned long long a, unsigned long long b) {
    while (b) {
        unsigned long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}
// a random bijection x -> (a*x + c) mod n of 0..n-1
static void hrf_affine(unsigned long long n, unsigned long long &a, unsigned long long &c) {
    a = 1;
    if (n > 1) do a = 1 + hrf_below(n - 1); while (hrf_gcd(a, n) != 1);
    c = hrf_below(n);
}
// a's inverse mod n (0 when n is 1, as Python's pow(a, -1, 1))
static unsigned long long hrf_inverse(unsigned long long a, unsigned long long n) {
    long long t = 0, nt = 1, r = (long long)n, nr = (long long)(a % n);
    while (nr) {
        long long q = r / nr, x;
        x = t - q * nt, t = nt, nt = x;
        x = r - q * nr, r = nr, nr = x;
    }
    return n == 1 ? 0 : (unsigned long long)(t < 0 ? t + (long long)n : t);
}

// one launch's parameters, in the order of the P_* numbers
static void hrf_params(u32 *P, const HrfGeometry &g, const HrfSetting &s, unsigned long long n) {
    unsigned long long ba = 1, bc = 0, wa = 1, wc = 0, la = 1, lc = 0;
    if (s.randomise) {
        hrf_affine(g.units, ba, bc);  // blocks, or clusters moved whole
        hrf_affine(g.warps, wa, wc);
        hrf_affine(HRF_WARP, la, lc);
    }
    hrf_param_values(P, g, s, n, ba, bc, wa, wc, la, lc);
    for (int l = 0; l < HRF_L; l++) {
        unsigned long long a = 1, c = 0;
        if (s.shuffle) hrf_affine(n, a, c);
        P[P_LOC_A + l] = (u32)a, P[P_LOC_C + l] = (u32)c;
    }
}

#ifdef HRF_EMULATE
// hrf's CPU test of this driver: in launch l every instance's variable n
// takes the value hrf_script(l, n) -- the domain's values in turn and, for
// variable 0 of every fifth launch, one outside the domain (recorded one by
// one) -- and test thread 0 of every seventh launch times out.
static unsigned hrf_script(unsigned long long l, int n) {
    if (n == 0 && l % 5 == 4) return 1000000u + (unsigned)l;
    return HRF_DOMAIN[n][(l + n) % HRF_DOMAIN_SIZE[n]];
}

void hrf_emulate_thread(int k, unsigned *out, unsigned *const *addrs) {
    const unsigned long long l = hrf_emulated_launches - 1;
    for (int o = 0; o + 1 < HRF_N_OUTPUTS[k]; o++) {
        const int v = HRF_OUTPUT_VAR[k][o];
        out[o] = v < 0 ? 0 : hrf_script(l, v);
    }
    out[HRF_N_OUTPUTS[k] - 1] = k == 0 && l % 7 == 6;
    for (int a = 0; a < HRF_N_ACCESSES[k]; a++)
        for (int j = 0; j < HRF_ACCESS_WORDS[k][a]; j++) {  // a vector's elements, consecutive locations
            const int v = HRF_LOC_VAR[HRF_ACCESS_LOC[k][a] + j];
            if (v >= 0) addrs[a][j] = hrf_script(l, v);
        }
}

// The kernels for hrf's CPU test of `hrf run`'s own runtime (built as a
// shared library and called in place of CuPy's launches): a kernel by
// name, its arguments as words (pointers and numbers) in its order; 0, or
// 1 for a name it does not know. hrf_emulate_restart starts the script
// again at launch 0.
extern "C" int hrf_emulate_kernel(const char *kernel, unsigned grid, unsigned block, const unsigned long long *a) {
    if (!std::strcmp(kernel, "hrf_test"))
        HRF_LAUNCH(hrf_test, grid, block, (u32 *)a[0], (u32 *)a[1], (u32 *)a[2], (u32 *)a[3], (const u32 *)a[4],
                   (u32)a[5]);
    else if (!std::strcmp(kernel, "hrf_tally"))
        HRF_LAUNCH(hrf_tally, grid, block, (u32 *)a[0], (u32 *)a[1], (u32 *)a[2], (const u32 *)a[3], (u32)a[4],
                   (u64 *)a[5], (u32 *)a[6], (u32)a[7], (u32 *)a[8]);
    else
        return 1;
    return 0;
}
extern "C" void hrf_emulate_restart() { hrf_emulated_launches = 0; }
#endif

// ------------------------------------------------------------ the run
struct HrfState {
    std::vector<int> values;
    unsigned long long count;
    int holds;
};

int main(int argc, char **argv) {
    HrfArgs a = hrf_args(argc, argv);
    const HrfSetting &s = a.s;
    hrf_state = a.seed;
    cudaDeviceProp props;
    HRF_CUDA(cudaGetDeviceProperties(&props, 0));
    cudaFuncAttributes attr;
    HRF_CUDA(cudaFuncGetAttributes(&attr, (const void *)hrf_test));
    int driver = 0, runtime = 0;
    HRF_CUDA(cudaDriverGetVersion(&driver));
    HRF_CUDA(cudaRuntimeGetVersion(&runtime));
    // blocks that fit on the device at once (placement.py's RESIDENT, written beside the tables as HRF_RESIDENT)
    const unsigned long long resident = s.blocks ? s.blocks : HRF_RESIDENT;
    const HrfGeometry g = hrf_geometry(resident, s);
    const unsigned long long n = g.instances();
    const unsigned long long region = g.region;
    const int nv = HRF_V > 0 ? HRF_V : 1;

    u32 *mem, *res, *scratch, *sync, *params, *ovf, *counters;
    u64 *hist;
    const size_t mem_words = (size_t)std::max(HRF_L, 1) * region;
    HRF_CUDA(cudaMalloc((void **)&mem, mem_words * 4));
    HRF_CUDA(cudaMalloc((void **)&res, (size_t)(n + 1) * HRF_ROW * 4));  // the last row: spare lanes' outputs
    HRF_CUDA(cudaMalloc((void **)&scratch, (size_t)s.stress_words * 4));
    HRF_CUDA(cudaMalloc((void **)&sync, (size_t)n * 4));
    HRF_CUDA(cudaMalloc((void **)&params, (size_t)HRF_BATCH * HRF_NP * 4));
    HRF_CUDA(cudaMalloc((void **)&ovf, (size_t)HRF_OVERFLOW_CAP * nv * 4));
    HRF_CUDA(cudaMalloc((void **)&counters, 4 * 4));
    HRF_CUDA(cudaMalloc((void **)&hist, (size_t)HRF_HIST * 8));
    {
        std::vector<u32> host(mem_words, 0);
        for (int l = 0; l < HRF_L; l++) {
            if (HRF_CELL[l] == 0) {
                std::fill(host.begin() + l * region, host.begin() + (l + 1) * region, HRF_INIT[l]);
                continue;
            }
            // an array's element k: k words past the first's, in each instance's copy of it (padded)
            const unsigned long long first = (unsigned long long)(l - (int)HRF_CELL[l]) * region;
            for (unsigned long long w = first + HRF_CELL[l]; w < first + region; w += g.pad) host[w] = HRF_INIT[l];
        }
        HRF_CUDA(cudaMemcpy(mem, host.data(), mem_words * 4, cudaMemcpyHostToDevice));
        std::vector<u32> poison((size_t)(n + 1) * HRF_ROW, HRF_POISON);
        HRF_CUDA(cudaMemcpy(res, poison.data(), poison.size() * 4, cudaMemcpyHostToDevice));
    }
    HRF_CUDA(cudaMemset(scratch, 0, (size_t)s.stress_words * 4));
    HRF_CUDA(cudaMemset(sync, 0, (size_t)n * 4));
    HRF_CUDA(cudaMemset(counters, 0, 4 * 4));
    HRF_CUDA(cudaMemset(hist, 0, (size_t)HRF_HIST * 8));

    std::vector<u32> batch((size_t)HRF_BATCH * HRF_NP);
    const unsigned tally_blocks = (unsigned)((n + 255) / 256);
    unsigned long long done = 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    while (a.seconds > 0 ? (done == 0 || elapsed() < a.seconds) : done < a.launches) {
        const unsigned k = a.seconds > 0 ? HRF_BATCH : (unsigned)std::min<unsigned long long>(HRF_BATCH, a.launches - done);
        for (unsigned j = 0; j < k; j++) hrf_params(&batch[(size_t)j * HRF_NP], g, s, n);
        HRF_CUDA(cudaMemcpy(params, batch.data(), (size_t)k * HRF_NP * 4, cudaMemcpyHostToDevice));
        for (unsigned j = 0; j < k; j++) {
            HRF_LAUNCH(hrf_test, (unsigned)g.blocks, s.block, mem, res, scratch, sync, params, j);
            HRF_LAUNCH(hrf_tally, tally_blocks, 256u, mem, res, sync, params, j, hist, ovf, HRF_OVERFLOW_CAP, counters);
        }
        HRF_CUDA(cudaGetLastError());
        HRF_CUDA(cudaDeviceSynchronize());  // the batch's parameters are rewritten next
        done += k;
    }
    std::vector<u64> h(HRF_HIST);
    u32 c[4];
    HRF_CUDA(cudaMemcpy(h.data(), hist, (size_t)HRF_HIST * 8, cudaMemcpyDeviceToHost));
    HRF_CUDA(cudaMemcpy(c, counters, sizeof c, cudaMemcpyDeviceToHost));
    const double secs = elapsed();
    const unsigned kept = std::min(c[2], HRF_OVERFLOW_CAP);
    std::vector<u32> rows((size_t)kept * nv);
    if (kept) HRF_CUDA(cudaMemcpy(rows.data(), ovf, rows.size() * 4, cudaMemcpyDeviceToHost));

    // the states: the histogram's keys in order, then the values outside the domains; most seen first
    std::vector<HrfState> states;
    for (unsigned long long key = 0; key < HRF_HIST; key++) {
        if (!h[key]) continue;
        HrfState st{std::vector<int>(HRF_V), h[key], 0};
        for (int v = 0; v < HRF_V; v++) st.values[v] = (int)HRF_DOMAIN[v][key / HRF_STRIDE[v] % HRF_DOMAIN_SIZE[v]];
        states.push_back(st);
    }
    std::map<std::vector<int>, unsigned long long> other;
    std::vector<std::vector<int>> order;
    for (unsigned r = 0; r < kept; r++) {
        std::vector<int> vals(rows.begin() + (size_t)r * nv, rows.begin() + (size_t)r * nv + HRF_V);
        if (!other.count(vals)) order.push_back(vals);
        other[vals]++;
    }
    for (auto &vals : order) states.push_back(HrfState{vals, other[vals], 0});
    std::stable_sort(states.begin(), states.end(), [](const HrfState &x, const HrfState &y) { return x.count > y.count; });
    unsigned long long pos = 0, neg = 0;
    for (auto &st : states) {
        st.holds = hrf_holds(st.values.data());
        (st.holds ? pos : neg) += st.count;
    }
    const int holds = HRF_QUANTIFIER == 0 ? pos > 0 : HRF_QUANTIFIER == 1 ? pos == 0 : neg == 0;

    // the log, as hrf run writes it (gpu/report.py)
    std::printf("Test %s %s\nHistogram (%zu states)\n", HRF_NAME, HRF_KIND, states.size());
    for (auto &st : states) {
        std::string line;
        for (int v = 0; v < HRF_V; v++) line += std::string(HRF_VAR_NAME[v]) + "=" + std::to_string(st.values[v]) + "; ";
        if (!line.empty()) line.pop_back();
        std::printf("%-6llu%c>%s\n", st.count, (st.holds != (HRF_QUANTIFIER == 2)) ? '*' : ':', line.c_str());
    }
    std::printf("%s\n\nWitnesses\n", holds ? "Ok" : "No");
    std::printf("Positive: %llu, Negative: %llu\n", HRF_QUANTIFIER == 1 ? neg : pos, HRF_QUANTIFIER == 1 ? pos : neg);
    std::printf("Condition %s is %svalidated\n", HRF_CONDITION, holds ? "" : "NOT ");
    std::printf("Device=%s (sm_%d%d), driver %d.%d, CUDA %d.%d, standalone driver\n", props.name, props.major,
                props.minor, driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    std::printf("Incantations=%s\n", hrf_describe(s).c_str());
    std::printf("Instances=%llu in %llu launches of %llu, %.1f M/s, code check not run (standalone driver)\n", done * n,
                done, n, secs > 0 ? done * n / secs / 1e6 : 0.0);
    const char *names[] = {"Timeouts", "Filtered", nullptr, "Missing"};
    for (int k = 0; k < 4; k++)
        if (names[k] && c[k]) std::printf("%s=%u\n", names[k], c[k]);
    std::printf("Observation %s %s %llu %llu\n", HRF_NAME, !pos ? "Never" : !neg ? "Always" : "Sometimes", pos, neg);
    std::printf("Time %s %.2f\n\n", HRF_NAME, secs);
    if (c[0]) std::fprintf(stderr, "hrf: note: %s: %u instances timed out in a spin loop (not counted as states)\n", HRF_NAME, c[0]);
    if (c[3]) std::fprintf(stderr, "hrf: note: %s: %u instances where a thread did not run: a harness fault\n", HRF_NAME, c[3]);
    if (c[2] > kept) std::fprintf(stderr, "hrf: note: %s: %u outcomes outside the recorded range were lost\n", HRF_NAME, c[2] - kept);
    cudaFree(mem), cudaFree(res), cudaFree(scratch), cudaFree(sync), cudaFree(params), cudaFree(ovf);
    cudaFree(counters), cudaFree(hist);
    return c[3] ? 1 : 0;
}
