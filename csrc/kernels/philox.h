/* philox.h: Philox4x32-10 (Salmon et al., SC'11) and the conversions to uniform and normal
 * doubles, written once for the CPU loops (random.c) and the device kernels (cuda/): CPN_HD.
 *
 * Element i of stream `stream` under key `seed` comes from blocks of counters (j, stream): two
 * uniforms or normals per block (j = i >> 1), four bounded integers (j = i >> 2), one element of
 * the other distributions (j = i); so a value depends only on (seed, stream, i), whatever the
 * device, thread count or partitioning.  Uniform draws use integer arithmetic and two exactly
 * rounded double operations (compiled without FMA contraction on the device), so CPU and GPU
 * draw bitwise the same numbers; the normal's ziggurat too but for its rare wedge and tail
 * tests (exp/log); the Box-Muller parts of other samplers go through log/cos/sqrt, whose device
 * versions (and the CPU loop's SLEEF ones, random.c) may differ from these in the last places. */
#ifndef CPN_PHILOX_H
#define CPN_PHILOX_H

#ifndef __CUDACC_RTC__
#include <math.h>
#include <stdint.h>
#endif

#ifdef __CUDACC__
#define CPN_PHILOX_HD static inline __host__ __device__
#else
#define CPN_PHILOX_HD static inline
#endif

#define CPN_PHILOX_M0 0xD2511F53u
#define CPN_PHILOX_M1 0xCD9E8D57u
#define CPN_PHILOX_W0 0x9E3779B9u
#define CPN_PHILOX_W1 0xBB67AE85u

CPN_PHILOX_HD void cpn_philox_round(uint32_t *c, const uint32_t *k)
{
    uint64_t p0 = (uint64_t)CPN_PHILOX_M0 * c[0], p1 = (uint64_t)CPN_PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
}

/* Ten rounds on counter c (in place) with key (k0, k1). */
CPN_PHILOX_HD void cpn_philox10(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint32_t k[2] = {k0, k1};
    for (int r = 0; r < 10; r++) {
        if (r) { k[0] += CPN_PHILOX_W0; k[1] += CPN_PHILOX_W1; }
        cpn_philox_round(c, k);
    }
}

/* 53 random bits to [0, 1), as NumPy's random_standard_uniform does from two 32-bit words;
 * through int32 (the shifted words fit): a conversion the CPU compiler vectorises. */
CPN_PHILOX_HD double cpn_philox_unit(uint32_t a, uint32_t b)
{
    return ((double)(int32_t)(a >> 5) * 67108864.0 + (double)(int32_t)(b >> 6)) / 9007199254740992.0;
}

/* The counter block of element idx of (seed, stream). */
CPN_PHILOX_HD void cpn_philox_block(uint64_t seed, uint64_t stream, uint64_t idx, uint32_t c[4])
{
    c[0] = (uint32_t)idx; c[1] = (uint32_t)(idx >> 32);
    c[2] = (uint32_t)stream; c[3] = (uint32_t)(stream >> 32);
    cpn_philox10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Element idx of a uniform draw on [lo, hi): two uniforms per block, element idx from words
 * 2h, 2h + 1 (h = idx & 1) of the block of counter idx >> 1. */
CPN_PHILOX_HD double cpn_philox_uniform(uint64_t seed, uint64_t stream, uint64_t idx, double lo, double hi)
{
    uint32_t c[4];
    cpn_philox_block(seed, stream, idx >> 1, c);
    const int h = (int)(idx & 1) * 2;
    return lo + (hi - lo) * cpn_philox_unit(c[h], c[h + 1]);
}


/* ---- every distribution: element idx of a draw of `dist` with parameters (p0, p1) --------------
 * Rejection samplers stay counter-based: attempt a of element idx is the block of counter
 * (idx, stream ^ a << 56), so a value depends on (seed, stream, idx) alone, never on neighbours or
 * on the partition.  Streams are below 2**56 (cupynum/random/ numbers them); attempts a < 256.
 * Samplers that compose others (beta, negative binomial, noncentral chi-square, t) give each
 * part its own range of attempts (CPN_PHILOX_PART). */
#define CPN_PHILOX_PART 64          /* attempts per part */
#define CPN_PHILOX_PI 3.141592653589793

CPN_PHILOX_HD void cpn_philox_sub(uint64_t seed, uint64_t stream, uint64_t idx, unsigned a, uint32_t c[4],
                                  const uint32_t *b0)
{
    if (a == 0 && b0) {   /* attempt 0's block, computed already (random.c's vector loop) */
        c[0] = b0[0]; c[1] = b0[1]; c[2] = b0[2]; c[3] = b0[3];
        return;
    }
    cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
}

/* (0, 1): 53 bits and a half. */
CPN_PHILOX_HD double cpn_philox_open(uint32_t a, uint32_t b)
{
    return ((double)(int32_t)(a >> 5) * 67108864.0 + (double)(int32_t)(b >> 6) + 0.5) / 9007199254740992.0;
}

/* (0, 1) from one word. */
CPN_PHILOX_HD double cpn_philox_open32(uint32_t a)
{
    return ((double)a + 0.5) / 4294967296.0;
}

#if defined(__CUDACC__)
#define CPN_PHILOX_TABLE static __device__ const
#else
#define CPN_PHILOX_TABLE static const
#endif

/* ---- the normal: a counter-based ziggurat ----------------------------------------------------
 * Marsaglia and Tsang's 256 layers of equal area v (r = 3.6541528853610088, v = 4.92867323399e-3;
 * tables from their recurrence x[i+1] = f^-1(f(x[i]) + v / x[i]), f(x) = exp(-x*x/2), computed once
 * in double and written here: x[0] = v / f(r), x[1] = r, x[256] = 0, zf[i] = f(x[i]), zf[256] = 1).
 * Attempt 0 of element idx is the 64 bits of words 2h, 2h + 1 (h = idx & 1) of the block of
 * counter idx >> 1 (two normals per block): layer i = bits 0-7, the sign bit 8, u = 52 bits
 * (the high word and bits 12-31), x = u * zx[i], accepted at once when x < zx[i + 1] (98.5%).
 * Otherwise: in layer 0 a draw from the tail beyond r (Marsaglia's exponential pairs, tries t
 * from the blocks of (idx, stream ^ (128 + t) << 56)); in a wedge the test y < f(x) with y from
 * the words 2, 3 of the block of (idx, stream ^ (a + 1) << 56); a rejected attempt a >= 1 takes
 * words 0, 1 of the block of (idx, stream ^ a << 56).  So the value is a function of (seed,
 * stream, idx) alone; the fast path is integer work, one multiply and a compare, bitwise the
 * same on every device; only the rare wedge and tail use exp/log. */
CPN_PHILOX_TABLE double cpn_zig_x[257] = {
    3.91075795953709, 3.654152885361009, 3.4492782985609645, 3.320244733839166, 3.224575052047029,
    3.14788928951715, 3.083526132001233, 3.0278377917686354, 2.978603279880845, 2.9343668672078542,
    2.894121053612348, 2.8571387308721325, 2.822877396825325, 2.7909211740007858,
    2.7609440052788226, 2.732685359042827, 2.705933656121858, 2.680514643284522,
    2.6562830375755024, 2.6331163936303246, 2.6109105184875485, 2.589575986706995,
    2.5690354526805366, 2.5492215503234608, 2.530075232158517, 2.5115444416253423,
    2.4935830412696807, 2.4761499396691433, 2.4592083743333113, 2.4427253181989568,
    2.426670984935726, 2.4110184138996855, 2.3957431197804806, 2.380822795170626,
    2.3662370567158186, 2.35196722737766, 2.3379961487950314, 2.324308018869623, 2.31088825059985,
    2.2977233489013296, 2.284800802722946, 2.272108990226824, 2.259637095172218,
    2.2473750329458078, 2.235313384928328, 2.2234433400909057, 2.2117566428825444,
    2.200245546609648, 2.1889027716247207, 2.1777214677386416, 2.166695180352646,
    2.1558178198750633, 2.1450836340462036, 2.13448718284432, 2.1240233156878157,
    2.113687150684934, 2.103474055713147, 2.0933796311370503, 2.083399693996552,
    2.0735302635169788, 2.0637675478099564, 2.054107931648865, 2.044547965215733,
    2.0350843537278087, 2.025713947862033, 2.0164337349043717, 2.007240830558685,
    1.9981324713565642, 1.9891060076155713, 1.9801588968985984, 1.9712886979317696,
    1.962493064942462, 1.953769742382734, 1.945116560006754, 1.936531428273759, 1.9280123340507183,
    1.9195573365912288, 1.9111645637692822, 1.9028322085484464, 1.89455852566871,
    1.8863418285347764, 1.8781804862909777, 1.8700729210692368, 1.8620176053976323,
    1.8540130597581481, 1.8460578502831198, 1.8381505865807286, 1.8302899196806666,
    1.8224745400917832, 1.8147031759641676, 1.8069745913486934, 1.7992875845475802,
    1.79164098655001, 1.7840336595472763, 1.776464495522345, 1.768932414909078, 1.7614363653167067,
    1.753975320315455, 1.746548278279493, 1.739154261283669, 1.7317923140507072,
    1.7244615029457757, 1.7171609150155407, 1.709889657069006, 1.702646854797614,
    1.6954316519322385, 1.6882432094348587, 1.6810807047228233, 1.6739433309237604,
    1.6668302961592867, 1.6597408228557895, 1.6526741470806485, 1.6456295179023603,
    1.6386061967731111, 1.631603456932422, 1.6246205828305684, 1.6176568695705342,
    1.6107116223673337, 1.603784156023583, 1.5968737944202613, 1.5899798700216485,
    1.5831017233934714, 1.5762387027333329, 1.5693901634125345, 1.5625554675284397,
    1.555733983466555, 1.5489250854715355, 1.5421281532263476, 1.5353425714388431,
    1.5285677294350246, 1.521803020758293, 1.5150478427739924, 1.508301596278572,
    1.5015636851127065, 1.4948335157777184, 1.4881104970546544, 1.4813940396253757,
    1.4746835556950255, 1.467978458615231, 1.4612781625074078, 1.4545820818855233,
    1.4478896312776697, 1.441200224845798, 1.4345132760029464, 1.4278281970272904,
    1.4211443986723231, 1.4144612897724647, 1.4077782768433715, 1.4010947636762026,
    1.3944101509250713, 1.3877238356868846, 1.381035211072742, 1.3743436657700305,
    1.367648583594318, 1.3609493430301018, 1.3542453167594306, 1.3475358711773593,
    1.3408203658931521, 1.3340981532160836, 1.3273685776246247, 1.32063097521773,
    1.313884673146869, 1.3071289890273539, 1.3003632303274337, 1.2935866937335176,
    1.2867986644897864, 1.2799984157103332, 1.2731852076618437, 1.2663582870146883,
    1.2595168860601442, 1.2526602218912979, 1.245787495544998, 1.2388978911020274,
    1.231990574742445, 1.225064693752808, 1.2181193754817266, 1.2111537262399112,
    1.2041668301405601, 1.197157747875586, 1.1901255154228016, 1.1830691426787607,
    1.1759876120114898, 1.1688798767268338, 1.1617448594415742, 1.1545814503558518,
    1.1473885054167339, 1.1401648443639958, 1.132909248648337, 1.1256204592112944,
    1.118297174115063, 1.1109380460092495, 1.1035416794202682, 1.0961066278476035,
    1.0886313906495142, 1.0811144096988894, 1.0735540657878717, 1.0659486747575067,
    1.0582964833260065, 1.0505956645862071, 1.0428443131393705, 1.0350404398286053,
    1.0271819660307513, 1.0192667174605292, 1.0112924174349784, 1.0032566795395914,
    0.9951569996299431, 0.9869907470938463, 0.9787551552889378, 0.9704473110588646,
    0.9620641432176052, 0.9536024098755727, 0.9450586844625711, 0.9364293402808969,
    0.9277105333962348, 0.918898183643735, 0.909987953490769, 0.9009752244551745,
    0.8918550707267924, 0.8826222295789101, 0.8732710680824946, 0.8637955455468269,
    0.8541891710015606, 0.8444449549024237, 0.8345553540795188, 0.8245122087452886,
    0.8143066701280643, 0.8039291169826649, 0.7933690588331528, 0.7826150232995888,
    0.7716544242167394, 0.7604734064220832, 0.7490566620095817, 0.7373872114258386,
    0.7254461409013035, 0.7132122851820227, 0.7006618410975844, 0.6877678927862577,
    0.6744998228274365, 0.660822574234206, 0.6466957148843889, 0.6320722363750246,
    0.6168969899962355, 0.6011046177439404, 0.5846167660937223, 0.567338257040473,
    0.5491517023130268, 0.5299097206464951, 0.5094233295859334, 0.48744396612175434,
    0.46363433677176324, 0.43751840218666266, 0.40838913458800075, 0.3751213328504657,
    0.33573751918045946, 0.2861745917472605, 0.2152418959132738, 0.0
};
CPN_PHILOX_TABLE double cpn_zig_f[257] = {
    0.0004774677645866553, 0.001260285930498598, 0.002609072746106363, 0.0040379725933718715,
    0.005522403299264754, 0.00705087547139211, 0.008616582769422917, 0.0102149714397311,
    0.011842757857943104, 0.013497450601780807, 0.015177088307982072, 0.01688008315259584,
    0.01860512127578335, 0.020351096230109354, 0.022117062707379922, 0.023902203305873237,
    0.025705804008632656, 0.027527235669693315, 0.02936593975823011, 0.03122141719202369,
    0.0330932194586887, 0.03498094146183307, 0.03688421568869115, 0.03880270740465692,
    0.04073611065607875, 0.04268414491661938, 0.044646552251446536, 0.046623094902089664,
    0.048613553216035145, 0.05061772386112179, 0.05263541827697365, 0.054666461325077916,
    0.05671069010639947, 0.058767952921137984, 0.060838108349751806, 0.06292102443797785,
    0.06501657797147044, 0.06712465382802399, 0.06924514439725027, 0.07137794905914197,
    0.07352297371424099, 0.07568013035919496, 0.07784933670237221, 0.08003051581494751,
    0.08222359581349568, 0.08442850957065466, 0.08664519445086778, 0.08887359206859423,
    0.09111364806670073, 0.09336531191302662, 0.09562853671335333, 0.09790327903921563,
    0.10018949876917202, 0.10248715894230627, 0.10479622562286706, 0.10711666777507288,
    0.10944845714721002, 0.11179156816424558, 0.11414597782825521, 0.11651166562603701,
    0.1188886134433457, 0.12127680548523544, 0.1236762282020514, 0.12608687022065035,
    0.12850872228047364, 0.13094177717412817, 0.13338602969216284, 0.13584147657175735,
    0.13830811644906432, 0.1407859498149683, 0.14327497897404712, 0.14577520800653793,
    0.14828664273312872, 0.15080929068241017, 0.15334316106083767, 0.15588826472506456,
    0.15844461415652022, 0.16101222343811766, 0.16359110823298295, 0.16618128576511007,
    0.16878277480185033, 0.17139559563815562, 0.17401977008249936, 0.17665532144440665,
    0.1793022745235304, 0.1819606556002165, 0.18463049242750454, 0.18731181422451693,
    0.19000465167119307, 0.1927090369043288, 0.1954250035148856, 0.1981525865465381,
    0.20089182249543133, 0.2036427493111215, 0.20640540639867933, 0.20917983462193565,
    0.21196607630785294, 0.2147641752520085, 0.21757417672517837, 0.2203961274810116,
    0.2232300757647896, 0.22607607132326488, 0.22893416541557748, 0.23180441082524852,
    0.2346868618732527, 0.23758157443217368, 0.2404886059414491, 0.243408015423712,
    0.24633986350223877, 0.2492842124195167, 0.25224112605694377, 0.25521066995567715,
    0.258192911338648, 0.2611879191337637, 0.26419576399831757, 0.26721651834463184,
    0.27025025636696, 0.2732970540696758, 0.27635698929678126, 0.2794301417627653,
    0.2825165930848494, 0.2856164268166581, 0.28872972848335393, 0.291856585618281,
    0.29499708780116257, 0.29815132669790134, 0.3013193961020341, 0.3045013919778963,
    0.30769741250555377, 0.3109075581275637, 0.31413193159763014, 0.3173706380312224,
    0.32062378495823013, 0.323891482377732, 0.3271738428149586, 0.3304709813805371,
    0.3337830158321085, 0.3371100666384128, 0.34045225704594545, 0.34380971314829134,
    0.3471825639582515, 0.3505709414828812, 0.35397498080156925, 0.3573948201472905,
    0.36083060099117575, 0.3642824681305496, 0.3677505697805962, 0.37123505766982134,
    0.3747360871394914, 0.3782538172472381, 0.38178841087503135, 0.38534003484173396,
    0.3889088600204646, 0.39249506146101076, 0.3960988185175471, 0.39972031498193167,
    0.4033597392228689, 0.40701728433124795, 0.4106931482719832, 0.4143875340427068,
    0.4181006498396846, 0.4218327092313533, 0.4255839313399006, 0.4293545410313415,
    0.43314476911457406, 0.4369548525499293, 0.4407850346677699, 0.44463556539772775,
    0.44850670150921407, 0.4523987068638825, 0.45631185268077357, 0.4602464178149235,
    0.46420268905027884, 0.46818096140782217, 0.47218153846988326, 0.4762047327216838,
    0.4802508659112497, 0.4843202694289116, 0.48841328470771206, 0.49253026364614866,
    0.4966715690547963, 0.5008375751284821, 0.5050286679458288, 0.5092452459981361,
    0.513487720749743, 0.5177565172322006, 0.5220520746747949, 0.5263748471741867,
    0.5307253044061939, 0.5351039323830196, 0.5395112342595446, 0.5439477311926499,
    0.5484139632579211, 0.5529104904285199, 0.5574378936214863, 0.5619967758172779,
    0.5665877632589518, 0.571211506738075, 0.5758686829752105, 0.5805599961036835,
    0.5852861792663003, 0.590047996335792, 0.5948462437709913, 0.5996817526221677,
    0.6045553907005495, 0.6094680649288954, 0.6144207238920768, 0.6194143606090392,
    0.6244500155502742, 0.6295287799281283, 0.63465179929096, 0.639820277456439,
    0.6450354808242519, 0.6502987431142946, 0.6556114705832247, 0.6609751477802414,
    0.6663913439123806, 0.6718617199007664, 0.6773880362225131, 0.6829721616487914,
    0.6886160830085271, 0.6943219161300326, 0.7000919181404901, 0.7059285013367974,
    0.7118342488823585, 0.7178119326349014, 0.7238645334728816, 0.7299952645658024,
    0.7362075981312667, 0.7425052963446362, 0.7488924472237267, 0.7553735065117545,
    0.7619533468415465, 0.7686373158033348, 0.7754313049861383, 0.7823418326598619,
    0.7893761435711986, 0.7965423304282546, 0.8038494831763895, 0.8113078743182199,
    0.8189291916094148, 0.8267268339520942, 0.8347162929929304, 0.8429156531184411,
    0.8513462584651237, 0.8600336212030086, 0.8690086880437932, 0.8783096558161468,
    0.8879846607633999, 0.898095921906304, 0.9087264400605629, 0.9199915050483602,
    0.9320600759689902, 0.945198953453078, 0.9598790918124159, 0.9771017012827313, 1.0
};

/* The slow part of element idx's normal: attempt 0 (words lo, hi) failed the fast test. */
CPN_PHILOX_HD double cpn_philox_zig_slow(uint64_t seed, uint64_t stream, uint64_t idx, uint32_t lo,
                                         uint32_t hi)
{
    uint32_t c[4];
    double x = 0.0;
    for (unsigned a = 0; a < CPN_PHILOX_PART; a++) {
        if (a) {
            cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
            lo = c[0];
            hi = c[1];
        }
        const int i = (int)(lo & 255u);
        x = ((double)hi * 1048576.0 + (double)(lo >> 12)) * (1.0 / 4503599627370496.0) * cpn_zig_x[i];
        if (x < cpn_zig_x[i + 1]) return lo & 256u ? -x : x;
        if (i == 0) {   /* the tail beyond r: x = r + e1 / r with 2 e2 > (e1 / r)**2 */
            const double r = cpn_zig_x[1];
            for (unsigned t = 0; t < CPN_PHILOX_PART; t++) {
                cpn_philox_block(seed, stream ^ ((uint64_t)(128 + t) << 56), idx, c);
                for (int h = 0; h < 4; h += 2) {
                    double e = -log(cpn_philox_open32(c[h])) / r, b = -log(cpn_philox_open32(c[h + 1]));
                    if (b + b > e * e) return lo & 256u ? -(r + e) : r + e;
                }
            }
            return lo & 256u ? -r : r;
        }
        cpn_philox_block(seed, stream ^ ((uint64_t)(a + 1) << 56), idx, c);
        double y = cpn_zig_f[i] + cpn_philox_unit(c[2], c[3]) * (cpn_zig_f[i + 1] - cpn_zig_f[i]);
        if (y < exp(-0.5 * x * x)) return lo & 256u ? -x : x;
    }
    return lo & 256u ? -x : x;
}

/* A standard normal from attempt 0's words (lo, hi) of element idx: the fast test, else the rest. */
CPN_PHILOX_HD double cpn_philox_zig(uint64_t seed, uint64_t stream, uint64_t idx, uint32_t lo, uint32_t hi)
{
    const int i = (int)(lo & 255u);
    const double x = ((double)hi * 1048576.0 + (double)(lo >> 12)) * (1.0 / 4503599627370496.0) * cpn_zig_x[i];
    if (x < cpn_zig_x[i + 1]) return lo & 256u ? -x : x;
    return cpn_philox_zig_slow(seed, stream, idx, lo, hi);
}

/* Element idx of a normal draw: the ziggurat above, two normals per block. */
CPN_PHILOX_HD double cpn_philox_normal(uint64_t seed, uint64_t stream, uint64_t idx, double loc, double scale)
{
    uint32_t c[4];
    cpn_philox_block(seed, stream, idx >> 1, c);
    const int h = (int)(idx & 1) * 2;
    return loc + scale * cpn_philox_zig(seed, stream, idx, c[h], c[h + 1]);
}

/* A standard normal from words 0, 1 (radius, 53 bits) and 2 (angle, 32 bits). */
CPN_PHILOX_HD double cpn_philox_bm3(const uint32_t c[4])
{
    double u1 = 1.0 - cpn_philox_unit(c[0], c[1]), u2 = cpn_philox_open32(c[2]);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A standard exponential from words 0 and 1. */
CPN_PHILOX_HD double cpn_philox_exp(const uint32_t c[4])
{
    return -log1p(-cpn_philox_unit(c[0], c[1]));
}

/* Standard gamma (Marsaglia-Tsang; shape < 1 through shape + 1 and a uniform power) over
 * attempts [base, base + CPN_PHILOX_PART). */
CPN_PHILOX_HD double cpn_philox_gamma_from(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base,
                                           double k, unsigned from, const uint32_t *b0);

CPN_PHILOX_HD double cpn_philox_gamma(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base, double k,
                                 const uint32_t *b0)
{
    return cpn_philox_gamma_from(seed, stream, idx, base, k, 0, b0);
}

/* ... from attempt `from` on (the earlier ones rejected: random.c's vector loop tried them). */
CPN_PHILOX_HD double cpn_philox_gamma_from(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base,
                                           double k, unsigned from, const uint32_t *b0)
{
    uint32_t c[4];
    if (k <= 0.0) return 0.0;
    if (k == 1.0) {
        cpn_philox_sub(seed, stream, idx, base, c, b0);
        return cpn_philox_exp(c);
    }
    double boost = 1.0;
    if (k < 1.0) {   /* the last attempt of the part is the uniform's */
        cpn_philox_sub(seed, stream, idx, base + CPN_PHILOX_PART - 1, c, b0);
        boost = pow(cpn_philox_open(c[0], c[1]), 1.0 / k);
        k += 1.0;
    }
    double d = k - 1.0 / 3.0, cc = 1.0 / sqrt(9.0 * d), v = 1.0;
    for (unsigned a = from; a < CPN_PHILOX_PART - 1; a++) {
        cpn_philox_sub(seed, stream, idx, base + a, c, b0);
        double x = cpn_philox_bm3(c);
        v = 1.0 + cc * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        double u = cpn_philox_open32(c[3]), x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) break;
        if (log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) break;
    }
    return d * (v > 0.0 ? v : 1.0) * boost;
}

/* Poisson over attempts [base, base + CPN_PHILOX_PART): inversion below 10 (one uniform),
 * PTRS (Hormann 1993) above. */
CPN_PHILOX_HD double cpn_philox_poisson(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base, double lam,
                                 const uint32_t *b0)
{
    uint32_t c[4];
    if (lam <= 0.0) return 0.0;
    if (lam < 10.0) {
        cpn_philox_sub(seed, stream, idx, base, c, b0);
        double u = cpn_philox_unit(c[0], c[1]), p = exp(-lam), f = p;
        double k = 0.0;
        while (u > f) {
            k += 1.0;
            p *= lam / k;
            f += p;
            if (p < 1e-17 && k > lam) break;   /* the rest of the mass is below rounding */
        }
        return k;
    }
    double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    double k = floor(lam);
    for (unsigned t = 0; t < CPN_PHILOX_PART; t++) {
        cpn_philox_sub(seed, stream, idx, base + t, c, b0);
        double U = cpn_philox_unit(c[0], c[1]) - 0.5, V = cpn_philox_open(c[2], c[3]);
        double us = 0.5 - fabs(U);
        k = floor((2.0 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return k;
        if (k < 0.0 || (us < 0.013 && V > us)) continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1.0))
            return k;
    }
    return k < 0.0 ? 0.0 : k;
}

/* Binomial(n, p): inversion below n * min(p, 1-p) = 10, BTRS (Hormann 1993) above. */
CPN_PHILOX_HD double cpn_philox_binomial(uint64_t seed, uint64_t stream, uint64_t idx, double n, double p,
                                 const uint32_t *b0)
{
    uint32_t c[4];
    if (n <= 0.0 || p <= 0.0) return 0.0;
    if (p >= 1.0) return n;
    double q = p > 0.5 ? 1.0 - p : p, k = 0.0;
    if (n * q < 10.0) {
        cpn_philox_sub(seed, stream, idx, 0, c, b0);
        double u = cpn_philox_unit(c[0], c[1]), r = q / (1.0 - q), pk = exp(n * log1p(-q)), f = pk;
        while (u > f && k < n) {
            pk *= (n - k) / (k + 1.0) * r;
            k += 1.0;
            f += pk;
            if (pk < 1e-17 && k > n * q) break;   /* the rest of the mass is below rounding */
        }
    } else {
        double spq = sqrt(n * q * (1.0 - q)), b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * q;
        double cc = n * q + 0.5, alpha = (2.83 + 5.1 / b) * spq, vr = 0.92 - 4.2 / b;
        double m = floor((n + 1.0) * q), lpq = log(q / (1.0 - q));
        double h = lgamma(m + 1.0) + lgamma(n - m + 1.0);
        k = m;
        for (unsigned t = 0; t < 4 * CPN_PHILOX_PART; t++) {
            cpn_philox_sub(seed, stream, idx, t, c, b0);
            double U = cpn_philox_unit(c[0], c[1]) - 0.5, V = cpn_philox_open(c[2], c[3]);
            double us = 0.5 - fabs(U), kk = floor((2.0 * a / us + b) * U + cc);
            if (kk < 0.0 || kk > n) continue;
            if (us >= 0.07 && V <= vr) { k = kk; break; }
            double lv = log(V * alpha / (a / (us * us) + b));
            if (lv <= h - lgamma(kk + 1.0) - lgamma(n - kk + 1.0) + (kk - m) * lpq) { k = kk; break; }
        }
    }
    return p > 0.5 ? n - k : k;
}

/* Hypergeometric by inversion outward from the mode (the support's order is fixed, so exact). */
CPN_PHILOX_HD double cpn_philox_hypergeom(uint64_t seed, uint64_t stream, uint64_t idx, double g, double b, double s,
                                 const uint32_t *b0)
{
    uint32_t c[4];
    double kmin = s - b > 0.0 ? s - b : 0.0, kmax = s < g ? s : g;
    if (kmin >= kmax) return kmin;
    double m = floor((s + 1.0) * (g + 1.0) / (g + b + 2.0));
    if (m < kmin) m = kmin;
    if (m > kmax) m = kmax;
    double lp = lgamma(g + 1.0) - lgamma(m + 1.0) - lgamma(g - m + 1.0) + lgamma(b + 1.0) -
                lgamma(s - m + 1.0) - lgamma(b - s + m + 1.0) - lgamma(g + b + 1.0) +
                lgamma(s + 1.0) + lgamma(g + b - s + 1.0);
    cpn_philox_sub(seed, stream, idx, 0, c, b0);
    double u = cpn_philox_unit(c[0], c[1]), pm = exp(lp);
    if (u < pm) return m;
    u -= pm;
    double lo = m, hi = m, plo = pm, phi = pm;
    while (lo > kmin || hi < kmax) {
        if (lo > kmin) {
            plo *= lo * (b - s + lo) / ((g - lo + 1.0) * (s - lo + 1.0));
            lo -= 1.0;
            if (u < plo) return lo;
            u -= plo;
        }
        if (hi < kmax) {
            phi *= (g - hi) * (s - hi) / ((hi + 1.0) * (b - s + hi + 1.0));
            hi += 1.0;
            if (u < phi) return hi;
            u -= phi;
        }
        if (plo < 1e-300 && phi < 1e-300) break;
    }
    return m;
}

/* 64 bits times r (< 2**64): the high and low words of the product. */
CPN_PHILOX_HD void cpn_philox_mul64(uint64_t x, uint64_t r, uint64_t *hi, uint64_t *lo)
{
    uint64_t x0 = (uint32_t)x, x1 = x >> 32, r0 = (uint32_t)r, r1 = r >> 32;
    uint64_t p00 = x0 * r0, p01 = x0 * r1, p10 = x1 * r0, p11 = x1 * r1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | (uint32_t)p00;
}

/* An integer in [0, r), 1 <= r <= 2**53: Lemire's multiply with rejection.  For r <= 2**32,
 * four per block: attempt 0 of element idx is word idx & 3 of the block of counter idx >> 2
 * (x0, when the caller has it, else computed here), times r in 32 bits; for larger r, two per
 * block: words 2h, 2h + 1 (h = idx & 1) of the block of idx >> 1 as 64 bits.  A rejected element
 * goes on with attempts a >= 1, the blocks of counter (idx, stream ^ a << 56), word by word (or
 * pair by pair); the chance of running out is below 2**-128. */
CPN_PHILOX_HD double cpn_philox_integer_from(uint64_t seed, uint64_t stream, uint64_t idx, uint64_t r,
                                            uint64_t x0, int have_x0)
{
    uint32_t c[4];
    if (r <= 4294967296ull) {
        if (!have_x0) {
            cpn_philox_block(seed, stream, idx >> 2, c);
            x0 = c[idx & 3];
        }
        const uint32_t t = (uint32_t)((4294967296ull - r) % r);   /* 2**32 mod r */
        uint64_t m = x0 * r;
        if ((uint32_t)m >= t) return (double)(m >> 32);
        for (unsigned a = 1; a < CPN_PHILOX_PART; a++) {
            cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
            for (int j = 0; j < 4; j++) {
                m = (uint64_t)c[j] * r;
                if ((uint32_t)m >= t) return (double)(m >> 32);
            }
        }
        return (double)(m >> 32);
    }
    if (!have_x0) {
        cpn_philox_block(seed, stream, idx >> 1, c);
        const int h = (int)(idx & 1) * 2;
        x0 = (uint64_t)c[h] | (uint64_t)c[h + 1] << 32;
    }
    uint64_t hi, lo, t = (0 - r) % r;   /* 2**64 mod r */
    cpn_philox_mul64(x0, r, &hi, &lo);
    if (lo >= t) return (double)hi;
    for (unsigned a = 1; a < CPN_PHILOX_PART; a++) {
        cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
        for (int h = 0; h < 2; h++) {
            cpn_philox_mul64((uint64_t)c[2 * h] | (uint64_t)c[2 * h + 1] << 32, r, &hi, &lo);
            if (lo >= t) return (double)hi;
        }
    }
    return (double)hi;
}

CPN_PHILOX_HD double cpn_philox_integer(uint64_t seed, uint64_t stream, uint64_t idx, double rd)
{
    return cpn_philox_integer_from(seed, stream, idx, (uint64_t)rd, 0, 0);
}

CPN_PHILOX_HD double cpn_philox_draw_b(int dist, uint64_t seed, uint64_t stream, uint64_t idx, double p0,
                                      double p1, const uint32_t *b0)
{
    uint32_t c[4];
    switch (dist) {
    case 0: /* UNIFORM */
        return cpn_philox_uniform(seed, stream, idx, p0, p1);
    case 1: /* NORMAL */
        return cpn_philox_normal(seed, stream, idx, p0, p1);
    case 3: /* INTEGER */
        return cpn_philox_integer(seed, stream, idx, p0);   /* its own blocks, not b0 */
    case 5: /* GAMMA */
        return p1 * cpn_philox_gamma(seed, stream, idx, 0, p0, b0);
    case 6: /* POISSON */
        return cpn_philox_poisson(seed, stream, idx, 0, p0, b0);
    case 7: /* BINOMIAL */
        return cpn_philox_binomial(seed, stream, idx, p0, p1, b0);
    case 17: { /* GEOMETRIC */
        if (p0 >= 1.0) return 1.0;
        cpn_philox_sub(seed, stream, idx, 0, c, b0);
        double k = ceil(log1p(-cpn_philox_unit(c[0], c[1])) / log1p(-p0));
        return k < 1.0 ? 1.0 : k;
    }
    case 18: { /* LOGSERIES (Kemp) */
        double r = log1p(-p0);
        for (unsigned a = 0; a < CPN_PHILOX_PART; a++) {
            cpn_philox_sub(seed, stream, idx, a, c, b0);
            double V = cpn_philox_open(c[0], c[1]);
            if (V >= p0) return 1.0;
            double q = -expm1(r * cpn_philox_open(c[2], c[3]));
            if (V <= q * q) {
                double res = floor(1.0 + log(V) / log(q));
                if (res < 1.0) continue;
                return res;
            }
            return V >= q ? 1.0 : 2.0;
        }
        return 1.0;
    }
    case 19: { /* ZIPF */
        double am1 = p0 - 1.0, b = pow(2.0, am1);
        for (unsigned a = 0; a < 4 * CPN_PHILOX_PART; a++) {
            cpn_philox_sub(seed, stream, idx, a, c, b0);
            double U = 1.0 - cpn_philox_unit(c[0], c[1]), V = cpn_philox_unit(c[2], c[3]);
            double X = floor(pow(U, -1.0 / am1));
            if (X > 9.2e18 || X < 1.0) continue;
            double T = pow(1.0 + 1.0 / X, am1);
            if (V * X * (T - 1.0) / (b - 1.0) <= T / b) return X;
        }
        return 1.0;
    }
    case 20: { /* VONMISES (Best-Fisher) */
        double kappa = p1, s;
        if (kappa < 1e-8) {
            cpn_philox_sub(seed, stream, idx, 0, c, b0);
            return CPN_PHILOX_PI * (2.0 * cpn_philox_unit(c[0], c[1]) - 1.0);
        }
        if (kappa > 1e6) {
            cpn_philox_sub(seed, stream, idx, 0, c, b0);
            double res = p0 + sqrt(1.0 / kappa) * cpn_philox_bm3(c);
            double md = fmod(fabs(res) + CPN_PHILOX_PI, 2.0 * CPN_PHILOX_PI) - CPN_PHILOX_PI;
            return res < 0.0 ? -md : md;
        }
        if (kappa < 1e-5) {
            s = 1.0 / kappa + kappa;
        } else {
            double r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa), rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
            s = (1.0 + rho * rho) / (2.0 * rho);
        }
        double W = 1.0;
        for (unsigned a = 0; a < 4 * CPN_PHILOX_PART; a++) {
            cpn_philox_sub(seed, stream, idx, a, c, b0);
            double z = cos(CPN_PHILOX_PI * cpn_philox_unit(c[0], c[1]));
            W = (1.0 + s * z) / (s + z);
            double Y = kappa * (s - W), V = cpn_philox_open32(c[2]);
            if (Y * (2.0 - Y) - V >= 0.0 || log(Y / V) + 1.0 - Y >= 0.0) break;
        }
        double res = acos(W);
        if (c[3] < 0x80000000u) res = -res;
        res += p0;
        double md = fmod(fabs(res) + CPN_PHILOX_PI, 2.0 * CPN_PHILOX_PI) - CPN_PHILOX_PI;
        return res < 0.0 ? -md : md;
    }
    case 21: { /* STUDENT_T: N / sqrt(G(df/2) / (df/2)) */
        cpn_philox_sub(seed, stream, idx, 2 * CPN_PHILOX_PART, c, b0);
        double g = cpn_philox_gamma(seed, stream, idx, 0, 0.5 * p0, b0);
        return sqrt(0.5 * p0) * cpn_philox_bm3(c) / sqrt(g);
    }
    case 22: { /* WALD */
        cpn_philox_sub(seed, stream, idx, 0, c, b0);
        double y = cpn_philox_bm3(c), mu2l = p0 / (2.0 * p1);
        y = p0 * y * y;
        double x = p0 + mu2l * (y - sqrt(4.0 * p1 * y + y * y));
        return cpn_philox_open32(c[3]) <= p0 / (p0 + x) ? x : p0 * p0 / x;
    }
    case 23: { /* BETA: Johnk for a, b <= 1, a ratio of gammas otherwise */
        if (p0 <= 1.0 && p1 <= 1.0) {
            for (unsigned a = 0; a < 4 * CPN_PHILOX_PART; a++) {
                cpn_philox_sub(seed, stream, idx, a, c, b0);
                double U = cpn_philox_open(c[0], c[1]), V = cpn_philox_open(c[2], c[3]);
                double X = pow(U, 1.0 / p0), Y = pow(V, 1.0 / p1), s = X + Y;
                if (s <= 1.0) {
                    if (s > 0.0) return X / s;
                    double lx = log(U) / p0, ly = log(V) / p1, lm = lx > ly ? lx : ly;
                    lx -= lm;
                    ly -= lm;
                    return exp(lx - log(exp(lx) + exp(ly)));
                }
            }
            return p0 / (p0 + p1);
        }
        double x = cpn_philox_gamma(seed, stream, idx, 0, p0, b0);
        double y = cpn_philox_gamma(seed, stream, idx, CPN_PHILOX_PART, p1, b0);
        return x / (x + y);
    }
    case 24: { /* NEGBINOMIAL: Poisson of Gamma(n, (1-p)/p) */
        double y = cpn_philox_gamma(seed, stream, idx, 0, p0, b0) * ((1.0 - p1) / p1);
        return cpn_philox_poisson(seed, stream, idx, CPN_PHILOX_PART, y, b0);
    }
    case 25: { /* NCCHISQ */
        if (p1 == 0.0) return 2.0 * cpn_philox_gamma(seed, stream, idx, 0, 0.5 * p0, b0);
        if (p0 > 1.0) {
            cpn_philox_sub(seed, stream, idx, 2 * CPN_PHILOX_PART, c, b0);
            double chi = 2.0 * cpn_philox_gamma(seed, stream, idx, 0, 0.5 * (p0 - 1.0), b0);
            double n = cpn_philox_bm3(c) + sqrt(p1);
            return chi + n * n;
        }
        double i = cpn_philox_poisson(seed, stream, idx, 2 * CPN_PHILOX_PART, 0.5 * p1, b0);
        return 2.0 * cpn_philox_gamma(seed, stream, idx, 0, 0.5 * p0 + i, b0);
    }
    case 26: { /* HYPERGEOM */
        double g = floor(p0 / 4194304.0), b = floor(p1 / 512.0);
        double s = (p0 - g * 4194304.0) * 512.0 + (p1 - b * 512.0);
        return cpn_philox_hypergeom(seed, stream, idx, g, b, s, b0);
    }
    default:
        break;
    }
    cpn_philox_sub(seed, stream, idx, 0, c, b0);
    switch (dist) {
    case 2: /* UNIT24 */
        return (double)(c[0] >> 8) / 16777216.0;
    case 4: /* EXPONENTIAL */
        return p0 * cpn_philox_exp(c);
    case 8: /* CAUCHY */
        return tan(CPN_PHILOX_PI * (cpn_philox_open(c[0], c[1]) - 0.5));
    case 9: { /* LOGISTIC */
        double u = cpn_philox_open(c[0], c[1]);
        return p0 + p1 * log(u / (1.0 - u));
    }
    case 10: /* GUMBEL */
        return p0 - p1 * log(-log(cpn_philox_open(c[0], c[1])));
    case 11: { /* LAPLACE */
        double u = cpn_philox_open(c[0], c[1]);
        return u >= 0.5 ? p0 - p1 * log(2.0 - u - u) : p0 + p1 * log(u + u);
    }
    case 12: /* PARETO */
        return expm1(cpn_philox_exp(c) / p0);
    case 13: /* POWER */
        return pow(-expm1(-cpn_philox_exp(c)), 1.0 / p0);
    case 14: /* RAYLEIGH */
        return p0 * sqrt(2.0 * cpn_philox_exp(c));
    case 15: /* WEIBULL */
        return p0 == 0.0 ? 0.0 : pow(cpn_philox_exp(c), 1.0 / p0);
    case 16: /* LOGNORMAL */
        return exp(p0 + p1 * cpn_philox_bm3(c));
    case 27: { /* TRIANGULAR on [0, 1], mode p0 */
        double u = cpn_philox_unit(c[0], c[1]);
        return u <= p0 ? sqrt(u * p0) : 1.0 - sqrt((1.0 - u) * (1.0 - p0));
    }
    default:
        return 0.0;
    }
}

CPN_PHILOX_HD double cpn_philox_draw(int dist, uint64_t seed, uint64_t stream, uint64_t idx, double p0, double p1)
{
    return cpn_philox_draw_b(dist, seed, stream, idx, p0, p1, 0);
}
#endif
