/*
 * framecalc.c — linear 2D frame analysis, built as a freestanding wasm32 module.
 *
 * Why freestanding: the module is the judge of every score, and it runs model
 * output that may be hostile. With no imports it can do nothing but compute on
 * its own linear memory; the host bounds that memory and the instruction fuel.
 *
 * One call, fc_solve(), does a whole analysis with several load cases: the
 * stiffness matrix is factored once and every case reuses the factor, which is
 * what the staged diagnosis needs (same structure, many probe loads).
 *
 * Method: Euler-Bernoulli frame elements with axial stiffness; end moment
 * releases by static condensation of the element rotation; supports as exact
 * constraints in a rotated nodal basis (or, on request, as the original
 * FrameCalc's linear springs); skyline LDL^T on a reverse Cuthill-McKee node
 * order; exact fixed-end forces from Hermite shape functions; internal forces
 * returned as exact piecewise polynomials.
 *
 * The layout of the input and output buffers is documented in ABI.md and
 * mirrored by src/structeval/fe/abi.py.
 */

#include <stddef.h>
#include <stdint.h>

#define ABI_VERSION 1

enum {
    ST_OK = 0,
    ST_MECHANISM = 1,
    ST_BAD_INPUT = 2,
    ST_NO_MEMORY = 3,
    ST_NUMERICAL = 4,
    ST_LOOK_CLOSER = 5 /* the layout check was asked for and could not confirm it */
};

/* Input record sizes (doubles). */
#define HDR_IN 10
#define REC_NODE 2
#define REC_ELEM 7
#define REC_SUPPORT 5
#define REC_NLOAD 5
#define REC_ELOAD 9
/* Output sizes (doubles). */
#define HDR_OUT 4
#define REC_PIECE 13
#define MAX_MODES_LIMIT 16

enum { LOAD_FORCE = 1, LOAD_COUPLE = 2, LOAD_DISTRIBUTED = 3 };

/* Dof states in the map from (node, k) to equation numbers. */
#define DOF_CONSTRAINED (-1)
#define DOF_ABSENT (-2)

/* A pivot below this share of its node's stiffness scale means a mechanism. */
#define PIVOT_TOL 1e-12
/*
 * Round-off in the Schur complement scales with the stiffest members, so a true
 * mechanism of a structure mixing stiff axial and soft bending terms can leave a
 * pivot of 1e-11 of its node's scale (measured), above PIVOT_TOL. When any pivot
 * is below SUSPECT_TOL the structure's kinematics are checked on a stiffness
 * matrix with the same null space but every member equally stiff (unit axial and
 * bending terms); there a mechanism leaves pivots near 1e-15 while stable
 * structures keep ratios of order 1e-3 or more, and KINEMATIC_TOL splits them.
 */
#define SUSPECT_TOL 1e-6
#define KINEMATIC_TOL 1e-9
/*
 * A flagged pivot is only a mechanism if its free motion deforms nothing: every
 * member moves rigidly (hinged ends may turn) and no support spring stretches.
 * A slender but stable structure (a 5,000-link cantilever chain) also leaves tiny
 * pivots, yet its softest motion bends the members by ~1e-7 of the motion; the
 * round-off of a true mechanism's motion is ~1e-14. DEFORM_TOL splits the two.
 */
#define DEFORM_TOL 1e-10
/* Load positions closer than this share of the length are the same place. */
#define POS_TOL 1e-9

/* ---------------------------------------------------------------- memory */

extern unsigned char __heap_base;
static uintptr_t arena_top;

static void *arena_alloc(size_t count, size_t size) {
    if (size != 0 && count > (SIZE_MAX - 16) / size) return 0;
    uintptr_t p = (arena_top + 7u) & ~(uintptr_t)7u;
    size_t bytes = count * size;
    if (bytes == 0) bytes = 8;
    uintptr_t end = p + bytes;
    if (end < p) return 0;
    uintptr_t have = (uintptr_t)__builtin_wasm_memory_size(0) * 65536u;
    if (end > have) {
        size_t pages = (size_t)((end - have + 65535u) / 65536u);
        if (__builtin_wasm_memory_grow(0, pages) == (size_t)-1) return 0;
    }
    arena_top = end;
    return (void *)p;
}

static void zero(double *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = 0.0;
}

/* ---------------------------------------------------------------- helpers */

static double fabs_(double x) { return __builtin_fabs(x); }
static int finite_(double x) { return x == x && fabs_(x) <= 1.79769313486231570e308; }
static int imax(int a, int b) { return a > b ? a : b; }

/* A count or index stored as a double: must be a small non-negative integer. */
static int as_index(double v, int limit) {
    if (!(v >= 0.0) || v >= (double)limit) return -1;
    int i = (int)v;
    return ((double)i == v) ? i : -1;
}

/* ---------------------------------------------------------------- model */

typedef struct {
    int a, b;
    double E, A, I, L, c, s;
    int rel[2];
    double k[36]; /* condensed local stiffness */
} Elem;

typedef struct {
    int node, mask;
    double c, s;
} Support;

typedef struct {
    int n_nodes, n_elems, n_supports, n_cases, n_nloads, n_eloads, max_modes;
    double spring;
    const double *xy;
    Elem *el;
    Support *sup;
    const double *nload;
    const double *eload;
    /* per node */
    double *bc, *bs; /* nodal basis e1 = (bc, bs) */
    int *sup_of;     /* support index or -1 */
    int *dof;        /* 3 per node: equation number, DOF_CONSTRAINED or DOF_ABSENT */
    double *scale;   /* 3 per node: stiffness scale used for pivot checks */
    int neq;
    /* per element: list of its loads (indices into eload) */
    int *el_first, *el_loads;
    /* skyline */
    int *first;     /* first row of each column */
    int *colptr;    /* start of each column in sky[] (diagonal at colptr[j] + j - first[j]) */
    double *sky;
    int *flagged;   /* equations whose pivot vanished (mechanism) */
    int n_flagged;
    double min_ratio; /* smallest pivot / scale seen by the last factorisation */
} Ctx;

/* ----------------------------------------------------- element stiffness */

static void elem_local_stiffness(const Elem *e, double k[36]) {
    double L = e->L, EA = e->E * e->A / L, EI = e->E * e->I;
    double k1 = 12.0 * EI / (L * L * L), k2 = 6.0 * EI / (L * L);
    double k3 = 4.0 * EI / L, k4 = 2.0 * EI / L;
    for (int i = 0; i < 36; i++) k[i] = 0.0;
#define K(i, j) k[(i) * 6 + (j)]
    K(0, 0) = EA;  K(0, 3) = -EA;  K(3, 0) = -EA;  K(3, 3) = EA;
    K(1, 1) = k1;  K(1, 2) = k2;   K(1, 4) = -k1;  K(1, 5) = k2;
    K(2, 1) = k2;  K(2, 2) = k3;   K(2, 4) = -k2;  K(2, 5) = k4;
    K(4, 1) = -k1; K(4, 2) = -k2;  K(4, 4) = k1;   K(4, 5) = -k2;
    K(5, 1) = k2;  K(5, 2) = k4;   K(5, 4) = -k2;  K(5, 5) = k3;
#undef K
}

/*
 * Static condensation of a released end rotation (local dof 2 or 5): the end
 * carries no moment, so its rotation is eliminated from k and from the fixed-end
 * force vector f. Eliminating the two rotations one after the other is the block
 * elimination, so the same code serves one hinge, two hinges (a two-force member)
 * and loads on released members.
 */
static void condense(const Elem *e, double k[36], double f[6]) {
    for (int end = 0; end < 2; end++) {
        if (!e->rel[end]) continue;
        int c = end ? 5 : 2;
        double kcc = k[c * 6 + c];
        if (kcc == 0.0) continue;
        for (int i = 0; i < 6; i++) {
            if (i == c) continue;
            double r = k[i * 6 + c] / kcc;
            if (r == 0.0) continue;
            for (int j = 0; j < 6; j++) k[i * 6 + j] -= r * k[c * 6 + j];
            if (f) f[i] -= r * f[c];
        }
        for (int j = 0; j < 6; j++) { k[c * 6 + j] = 0.0; k[j * 6 + c] = 0.0; }
        if (f) f[c] = 0.0;
    }
}

/*
 * Rotation from nodal-basis dofs to element-local dofs at one end: the nodal basis
 * is turned by beta, the element axis by alpha, so local = Rot(beta - alpha) node.
 * Returned as (cos, sin) of (beta - alpha) without trigonometry.
 */
static void end_rotation(const Ctx *cx, const Elem *e, int node, double *rc, double *rs) {
    double bc = cx->bc[node], bs = cx->bs[node];
    *rc = bc * e->c + bs * e->s;
    *rs = bs * e->c - bc * e->s;
}

/* T (6x6) with local = T * nodal-basis dofs of the element's two ends. */
static void elem_transform(const Ctx *cx, const Elem *e, double T[36]) {
    for (int i = 0; i < 36; i++) T[i] = 0.0;
    for (int end = 0; end < 2; end++) {
        double rc, rs;
        end_rotation(cx, e, end ? e->b : e->a, &rc, &rs);
        int o = end * 3;
        T[(o + 0) * 6 + o + 0] = rc;  T[(o + 0) * 6 + o + 1] = -rs;
        T[(o + 1) * 6 + o + 0] = rs;  T[(o + 1) * 6 + o + 1] = rc;
        T[(o + 2) * 6 + o + 2] = 1.0;
    }
}

/* --------------------------------------------------------- fixed-end forces */

/* Hermite shape functions (transverse) and their s-derivatives at xi = s/L. */
static void hermite(double L, double xi, double N[4], double dN[4]) {
    double x2 = xi * xi, x3 = x2 * xi;
    N[0] = 1.0 - 3.0 * x2 + 2.0 * x3;
    N[1] = L * (xi - 2.0 * x2 + x3);
    N[2] = 3.0 * x2 - 2.0 * x3;
    N[3] = L * (x3 - x2);
    dN[0] = (-6.0 * xi + 6.0 * x2) / L;
    dN[1] = 1.0 - 4.0 * xi + 3.0 * x2;
    dN[2] = (6.0 * xi - 6.0 * x2) / L;
    dN[3] = 3.0 * x2 - 2.0 * xi;
}

/* Adds the equivalent nodal load of a force (px, py) at s to q (local dofs). */
static void equiv_force(double L, double s, double px, double py, double q[6]) {
    double N[4], dN[4], xi = s / L;
    hermite(L, xi, N, dN);
    q[0] += px * (1.0 - xi);
    q[3] += px * xi;
    q[1] += py * N[0]; q[2] += py * N[1];
    q[4] += py * N[2]; q[5] += py * N[3];
}

/* Adds the equivalent nodal load of a couple C at s (the work-conjugate of dv/ds). */
static void equiv_couple(double L, double s, double C, double q[6]) {
    double N[4], dN[4];
    hermite(L, s / L, N, dN);
    q[1] += C * dN[0]; q[2] += C * dN[1];
    q[4] += C * dN[2]; q[5] += C * dN[3];
}

/*
 * Fixed-end force vector (forces the clamps exert on the element, local dofs) of
 * one element under the loads of one case, before condensation. Linear loads times
 * cubic shape functions are quartic: 3-point Gauss-Legendre integrates them exactly.
 */
static void fixed_end_forces(const Ctx *cx, int ei, int lc, double f[6]) {
    const Elem *e = &cx->el[ei];
    double q[6] = {0, 0, 0, 0, 0, 0};
    static const double gx[3] = {-0.7745966692414833770, 0.0, 0.7745966692414833770};
    static const double gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    for (int k = cx->el_first[ei]; k < cx->el_first[ei + 1]; k++) {
        const double *r = cx->eload + (size_t)cx->el_loads[k] * REC_ELOAD;
        if ((int)r[0] != lc) continue;
        int type = (int)r[2];
        if (type == LOAD_FORCE) {
            equiv_force(e->L, r[3], r[4], r[5], q);
        } else if (type == LOAD_COUPLE) {
            equiv_couple(e->L, r[3], r[4], q);
        } else {
            double s1 = r[3], s2 = r[4], h = 0.5 * (s2 - s1), m = 0.5 * (s1 + s2);
            for (int g = 0; g < 3; g++) {
                double t = 0.5 * (gx[g] + 1.0); /* 0..1 along the loaded part */
                double s = m + h * gx[g];
                double px = r[5] + (r[7] - r[5]) * t, py = r[6] + (r[8] - r[6]) * t;
                equiv_force(e->L, s, px * gw[g] * h, py * gw[g] * h, q);
            }
        }
    }
    for (int i = 0; i < 6; i++) f[i] = -q[i];
}

/* ------------------------------------------------------------- reading */

static int read_input(Ctx *cx, const double *in, int n_in, double *detail) {
    if (n_in < HDR_IN || in[0] != (double)ABI_VERSION) { *detail = 0; return ST_BAD_INPUT; }
    int lim = 1 << 24;
    cx->n_nodes = as_index(in[1], lim);
    cx->n_elems = as_index(in[2], lim);
    cx->n_supports = as_index(in[3], lim);
    cx->n_cases = as_index(in[4], 1 << 16);
    cx->n_nloads = as_index(in[5], lim);
    cx->n_eloads = as_index(in[6], lim);
    cx->spring = in[7];
    cx->max_modes = as_index(in[8], MAX_MODES_LIMIT + 1);
    if (cx->n_nodes < 1 || cx->n_elems < 1 || cx->n_supports < 0 || cx->n_cases < 1 ||
        cx->n_nloads < 0 || cx->n_eloads < 0 || cx->max_modes < 0 ||
        !finite_(cx->spring) || cx->spring < 0.0) {
        *detail = 1;
        return ST_BAD_INPUT;
    }
    double need = HDR_IN + (double)cx->n_nodes * REC_NODE + (double)cx->n_elems * REC_ELEM +
                  (double)cx->n_supports * REC_SUPPORT + (double)cx->n_nloads * REC_NLOAD +
                  (double)cx->n_eloads * REC_ELOAD;
    if (need != (double)n_in) { *detail = 2; return ST_BAD_INPUT; }
    for (int i = 0; i < n_in; i++)
        if (!finite_(in[i])) { *detail = 3; return ST_BAD_INPUT; }

    const double *p = in + HDR_IN;
    cx->xy = p;
    p += (size_t)cx->n_nodes * REC_NODE;
    const double *pe = p;
    p += (size_t)cx->n_elems * REC_ELEM;
    const double *ps = p;
    p += (size_t)cx->n_supports * REC_SUPPORT;
    cx->nload = p;
    p += (size_t)cx->n_nloads * REC_NLOAD;
    cx->eload = p;

    int N = cx->n_nodes;
    cx->el = arena_alloc((size_t)cx->n_elems, sizeof(Elem));
    cx->sup = arena_alloc((size_t)cx->n_supports, sizeof(Support));
    cx->bc = arena_alloc((size_t)N, sizeof(double));
    cx->bs = arena_alloc((size_t)N, sizeof(double));
    cx->sup_of = arena_alloc((size_t)N, sizeof(int));
    if (!cx->el || !cx->sup || !cx->bc || !cx->bs || !cx->sup_of) return ST_NO_MEMORY;
    for (int i = 0; i < N; i++) { cx->bc[i] = 1.0; cx->bs[i] = 0.0; cx->sup_of[i] = -1; }

    for (int i = 0; i < cx->n_elems; i++) {
        const double *r = pe + (size_t)i * REC_ELEM;
        Elem *e = &cx->el[i];
        e->a = as_index(r[0], N);
        e->b = as_index(r[1], N);
        e->E = r[2]; e->A = r[3]; e->I = r[4];
        e->rel[0] = r[5] != 0.0;
        e->rel[1] = r[6] != 0.0;
        if (e->a < 0 || e->b < 0 || e->a == e->b || !(e->E > 0) || !(e->A > 0) || !(e->I > 0)) {
            *detail = 100 + i;
            return ST_BAD_INPUT;
        }
        double dx = cx->xy[2 * e->b] - cx->xy[2 * e->a];
        double dy = cx->xy[2 * e->b + 1] - cx->xy[2 * e->a + 1];
        double L = __builtin_sqrt(dx * dx + dy * dy);
        if (!(L > 0.0) || !finite_(L)) { *detail = 100 + i; return ST_BAD_INPUT; }
        e->L = L; e->c = dx / L; e->s = dy / L;
        elem_local_stiffness(e, e->k);
        condense(e, e->k, 0);
        /* E*I = 1e600 is inf in f64: an overflowed stiffness, not a mechanism */
        for (int k = 0; k < 36; k++)
            if (!finite_(e->k[k])) { *detail = 500000 + i; return ST_BAD_INPUT; }
    }
    for (int i = 0; i < cx->n_supports; i++) {
        const double *r = ps + (size_t)i * REC_SUPPORT;
        Support *s = &cx->sup[i];
        s->node = as_index(r[0], N);
        s->mask = as_index(r[1], 8);
        s->c = r[2]; s->s = r[3];
        double norm = s->c * s->c + s->s * s->s;
        if (s->node < 0 || s->mask < 0 || fabs_(norm - 1.0) > 1e-9 || cx->sup_of[s->node] >= 0) {
            *detail = 200000 + i;
            return ST_BAD_INPUT;
        }
        cx->sup_of[s->node] = i;
        cx->bc[s->node] = s->c;
        cx->bs[s->node] = s->s;
    }
    for (int i = 0; i < cx->n_nloads; i++) {
        const double *r = cx->nload + (size_t)i * REC_NLOAD;
        if (as_index(r[0], cx->n_cases) < 0 || as_index(r[1], N) < 0) {
            *detail = 300000 + i;
            return ST_BAD_INPUT;
        }
    }
    /* per-element load lists */
    cx->el_first = arena_alloc((size_t)cx->n_elems + 1, sizeof(int));
    cx->el_loads = arena_alloc((size_t)cx->n_eloads, sizeof(int));
    if (!cx->el_first || !cx->el_loads) return ST_NO_MEMORY;
    for (int i = 0; i <= cx->n_elems; i++) cx->el_first[i] = 0;
    for (int i = 0; i < cx->n_eloads; i++) {
        const double *r = cx->eload + (size_t)i * REC_ELOAD;
        int ei = as_index(r[1], cx->n_elems);
        int type = as_index(r[2], 4);
        if (as_index(r[0], cx->n_cases) < 0 || ei < 0 || type < LOAD_FORCE) {
            *detail = 400000 + i;
            return ST_BAD_INPUT;
        }
        double L = cx->el[ei].L, tol = POS_TOL * L;
        int bad;
        if (type == LOAD_DISTRIBUTED)
            bad = !(r[3] >= -tol && r[4] <= L + tol && r[4] - r[3] > tol);
        else
            bad = !(r[3] >= -tol && r[3] <= L + tol);
        if (bad) { *detail = 400000 + i; return ST_BAD_INPUT; }
        cx->el_first[ei + 1]++;
    }
    for (int i = 0; i < cx->n_elems; i++) cx->el_first[i + 1] += cx->el_first[i];
    int *fill = arena_alloc((size_t)cx->n_elems, sizeof(int));
    if (!fill) return ST_NO_MEMORY;
    for (int i = 0; i < cx->n_elems; i++) fill[i] = cx->el_first[i];
    for (int i = 0; i < cx->n_eloads; i++) {
        int ei = (int)cx->eload[(size_t)i * REC_ELOAD + 1];
        cx->el_loads[fill[ei]++] = i;
    }
    return ST_OK;
}

/* ------------------------------------------------------ layout check */

/*
 * The separated-layout shortcut of structeval.model.geometry.columns_clearly_sane,
 * asked for by a nonzero relative tolerance in header slot 9: 1 only if the host's
 * full geometry check would report nothing (no two points at one place, no point on
 * no link, no point inside a link, no two links joining the same two points), 0 for
 * "look closer" (the host then checks the model in full). It relies on a separated
 * layout: distinct x values, and distinct y values, more than SEPARATION tolerances
 * apart, so that "within a tolerance" means "equal" for axis-aligned links; inclined
 * links are measured against the points within their x extent with the margins of
 * the host's shortcut. Supports (one per node) are checked by read_input, and loads
 * by the host, which holds their unclamped positions.
 */
#define SEPARATION 10.0

/* (k1[i], k2[i]) < (k1[j], k2[j]), the keys strided by `stride` doubles. */
static int key_less(const double *k1, const double *k2, int stride, int i, int j) {
    double a = k1[(size_t)i * stride], b = k1[(size_t)j * stride];
    if (a != b) return a < b;
    return k2[(size_t)i * stride] < k2[(size_t)j * stride];
}

/* Heap sort of the indices idx[0..n) by their keys (no recursion, no allocation). */
static void sort_by_keys(int *idx, int n, const double *k1, const double *k2, int stride) {
    for (int start = n / 2 - 1, end = n; end > 1;) {
        int root;
        if (start >= 0) {
            root = start--;
        } else {
            int t = idx[0]; idx[0] = idx[--end]; idx[end] = t;
            root = 0;
        }
        for (;;) {
            int child = 2 * root + 1;
            if (child >= end) break;
            if (child + 1 < end && key_less(k1, k2, stride, idx[child], idx[child + 1])) child++;
            if (!key_less(k1, k2, stride, idx[root], idx[child])) break;
            int t = idx[root]; idx[root] = idx[child]; idx[child] = t;
            root = child;
        }
    }
}

/* Sorted order and rank of the nodes by (x, y) (axis 0) or (y, x) (axis 1); 0 when two
 * nodes share a place or two distinct values of the first key are within `gap`. */
static int order_nodes(const Ctx *cx, int axis, double gap, int *order, int *rank) {
    int N = cx->n_nodes;
    const double *k1 = cx->xy + axis, *k2 = cx->xy + (1 - axis);
    for (int i = 0; i < N; i++) order[i] = i;
    sort_by_keys(order, N, k1, k2, 2);
    for (int r = 0; r < N; r++) {
        rank[order[r]] = r;
        if (r == 0) continue;
        double u0 = k1[2 * order[r - 1]], u1 = k1[2 * order[r]];
        if (u0 == u1 && k2[2 * order[r - 1]] == k2[2 * order[r]]) return 0; /* one place */
        if (u0 != u1 && u1 - u0 <= gap) return 0; /* not separated */
    }
    return 1;
}

static double hypot_(double dx, double dy) {
    double m = fabs_(dx) > fabs_(dy) ? fabs_(dx) : fabs_(dy);
    if (m == 0.0) return 0.0;
    double a = dx / m, b = dy / m;
    return m * __builtin_sqrt(a * a + b * b);
}

static int layout_clear(const Ctx *cx, double rel_tol, double *why) {
    int N = cx->n_nodes, M = cx->n_elems;
    const double *xy = cx->xy;
    double x0 = xy[0], x1 = xy[0], y0 = xy[1], y1 = xy[1];
    for (int i = 1; i < N; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
    }
    double scale = x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0;
    if (!(scale > 1e-300)) scale = 1e-300;
    double tol = rel_tol * scale, gap = SEPARATION * tol;
    int *order_x = arena_alloc((size_t)N, sizeof(int)), *rank_x = arena_alloc((size_t)N, sizeof(int));
    int *order_y = arena_alloc((size_t)N, sizeof(int)), *rank_y = arena_alloc((size_t)N, sizeof(int));
    int *used = arena_alloc((size_t)N, sizeof(int)), *pair = arena_alloc((size_t)M, sizeof(int));
    double *ends = arena_alloc((size_t)2 * M, sizeof(double));
    if (!order_x || !rank_x || !order_y || !rank_y || !used || !pair || !ends) {
        *why = 1;
        return 0;
    }
    if (!order_nodes(cx, 0, gap, order_x, rank_x) || !order_nodes(cx, 1, gap, order_y, rank_y)) {
        *why = 2;
        return 0;
    }
    for (int i = 0; i < N; i++) used[i] = 0;
    for (int e = 0; e < M; e++) {
        int a = cx->el[e].a, b = cx->el[e].b;
        used[a] = used[b] = 1;
        ends[2 * e] = a < b ? a : b; /* the pair, either way round */
        ends[2 * e + 1] = a < b ? b : a;
        pair[e] = e;
    }
    for (int i = 0; i < N; i++)
        if (!used[i]) { *why = 3; return 0; } /* a point on no link */
    sort_by_keys(pair, M, ends, ends + 1, 2);
    for (int r = 1; r < M; r++)
        if (ends[2 * pair[r]] == ends[2 * pair[r - 1]] &&
            ends[2 * pair[r] + 1] == ends[2 * pair[r - 1] + 1]) {
            *why = 4; /* two links joining the same two points */
            return 0;
        }
    double near = 1.5 * tol, far = 2.0 * tol, half = 0.5 * tol;
    double budget = 32.0 * (N + M) + 256.0;
    for (int e = 0; e < M; e++) {
        int a = cx->el[e].a, b = cx->el[e].b;
        double xa = xy[2 * a], ya = xy[2 * a + 1], xb = xy[2 * b], yb = xy[2 * b + 1];
        if (xa == xb || ya == yb) { /* another point on the line between its ends? */
            int step = xa == xb ? rank_x[a] - rank_x[b] : rank_y[a] - rank_y[b];
            if (step != 1 && step != -1) { *why = 5; return 0; }
            continue;
        }
        double dx = xb - xa, dy = yb - ya, L = hypot_(dx, dy);
        double ux = dx / L, uy = dy / L;
        double lo_x = (xa < xb ? xa : xb) - far, hi_x = (xa < xb ? xb : xa) + far;
        double lo_y = (ya < yb ? ya : yb) - far, hi_y = (ya < yb ? yb : ya) + far;
        int lo = 0, hi = N; /* first node in x order with x >= lo_x */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (xy[2 * order_x[mid]] < lo_x) lo = mid + 1; else hi = mid;
        }
        for (int r = lo; r < N && xy[2 * order_x[r]] <= hi_x; r++) {
            if (--budget < 0) { *why = 6; return 0; } /* crowded: the host's arrays are cheaper */
            int q = order_x[r];
            double yq = xy[2 * q + 1];
            if (q == a || q == b || yq < lo_y || yq > hi_y) continue;
            double rx = xy[2 * q] - xa, ry = yq - ya;
            double along = rx * ux + ry * uy;
            if (fabs_(rx * uy - ry * ux) <= near && half <= along && along <= L - half) {
                *why = 7; /* a point inside an inclined link */
                return 0;
            }
        }
    }
    return 1;
}

/* ------------------------------------------------------ node ordering */

/*
 * Reverse Cuthill-McKee over the node graph keeps the skyline narrow: a 200-member
 * frame factors in microseconds instead of the milliseconds a dense solve takes.
 */
static int rcm_order(Ctx *cx, int *order) {
    int N = cx->n_nodes, M = cx->n_elems;
    int *deg = arena_alloc((size_t)N + 1, sizeof(int));
    int *adj = arena_alloc((size_t)2 * M, sizeof(int));
    int *pos = arena_alloc((size_t)N + 1, sizeof(int));
    int *seen = arena_alloc((size_t)N, sizeof(int));
    if (!deg || !adj || !pos || !seen) return ST_NO_MEMORY;
    for (int i = 0; i <= N; i++) deg[i] = 0;
    for (int i = 0; i < M; i++) { deg[cx->el[i].a + 1]++; deg[cx->el[i].b + 1]++; }
    for (int i = 0; i < N; i++) deg[i + 1] += deg[i];
    for (int i = 0; i <= N; i++) pos[i] = deg[i];
    for (int i = 0; i < M; i++) {
        adj[pos[cx->el[i].a]++] = cx->el[i].b;
        adj[pos[cx->el[i].b]++] = cx->el[i].a;
    }
    for (int i = 0; i < N; i++) seen[i] = 0;
    int count = 0;
    for (;;) {
        /* Start of the next component: an unvisited node of least degree, then
         * one BFS sweep to move to the far end (pseudo-peripheral node). */
        int start = -1;
        for (int i = 0; i < N; i++)
            if (!seen[i] && (start < 0 || deg[i + 1] - deg[i] < deg[start + 1] - deg[start]))
                start = i;
        if (start < 0) break;
        for (int sweep = 0; sweep < 2; sweep++) {
            int head = count, tail = count;
            order[tail++] = start;
            seen[start] = 1;
            while (head < tail) {
                int v = order[head++];
                int lo = tail;
                for (int k = deg[v]; k < deg[v + 1]; k++) {
                    int w = adj[k];
                    if (!seen[w]) { seen[w] = 1; order[tail++] = w; }
                }
                /* neighbours by increasing degree (insertion sort; lists are short) */
                for (int a = lo + 1; a < tail; a++) {
                    int w = order[a], dw = deg[w + 1] - deg[w], b = a - 1;
                    while (b >= lo && deg[order[b] + 1] - deg[order[b]] > dw) {
                        order[b + 1] = order[b];
                        b--;
                    }
                    order[b + 1] = w;
                }
            }
            if (sweep == 0) {
                int far = order[tail - 1];
                for (int k = count; k < tail; k++) seen[order[k]] = 0;
                start = far;
            } else {
                count = tail;
            }
        }
    }
    for (int i = 0, j = N - 1; i < j; i++, j--) {
        int t = order[i]; order[i] = order[j]; order[j] = t;
    }
    return ST_OK;
}

/* ------------------------------------------------------ dof numbering */

static int number_dofs(Ctx *cx) {
    int N = cx->n_nodes;
    int *order = arena_alloc((size_t)N, sizeof(int));
    int *rigid = arena_alloc((size_t)N, sizeof(int));
    cx->dof = arena_alloc((size_t)3 * N, sizeof(int));
    cx->scale = arena_alloc((size_t)3 * N, sizeof(double));
    if (!order || !rigid || !cx->dof || !cx->scale) return ST_NO_MEMORY;
    int st = rcm_order(cx, order);
    if (st) return st;
    for (int i = 0; i < N; i++) rigid[i] = 0;
    for (int i = 0; i < cx->n_elems; i++) {
        if (!cx->el[i].rel[0]) rigid[cx->el[i].a] = 1;
        if (!cx->el[i].rel[1]) rigid[cx->el[i].b] = 1;
    }
    int exact = cx->spring == 0.0;
    int n = 0;
    for (int k = 0; k < N; k++) {
        int node = order[k];
        int si = cx->sup_of[node];
        int mask = si >= 0 ? cx->sup[si].mask : 0;
        for (int d = 0; d < 3; d++) {
            int restrained = (mask >> d) & 1;
            int *slot = &cx->dof[3 * node + d];
            if (restrained && exact) *slot = DOF_CONSTRAINED;
            else if (d == 2 && !rigid[node] && !restrained) *slot = DOF_ABSENT;
            else *slot = n++;
        }
    }
    cx->neq = n;
    return ST_OK;
}

/* ------------------------------------------------------ skyline matrix */

static int elem_dofs(const Ctx *cx, const Elem *e, int d[6]) {
    int lo = cx->neq;
    for (int k = 0; k < 3; k++) {
        d[k] = cx->dof[3 * e->a + k];
        d[3 + k] = cx->dof[3 * e->b + k];
    }
    for (int k = 0; k < 6; k++)
        if (d[k] >= 0 && d[k] < lo) lo = d[k];
    return lo;
}

static int build_skyline(Ctx *cx) {
    int n = cx->neq;
    cx->first = arena_alloc((size_t)n + 1, sizeof(int));
    cx->colptr = arena_alloc((size_t)n + 1, sizeof(int));
    if (!cx->first || !cx->colptr) return ST_NO_MEMORY;
    for (int j = 0; j < n; j++) cx->first[j] = j;
    for (int i = 0; i < cx->n_elems; i++) {
        int d[6];
        int lo = elem_dofs(cx, &cx->el[i], d);
        for (int k = 0; k < 6; k++)
            if (d[k] >= 0 && lo < cx->first[d[k]]) cx->first[d[k]] = lo;
    }
    size_t total = 0;
    for (int j = 0; j < n; j++) {
        cx->colptr[j] = (int)total;
        total += (size_t)(j - cx->first[j] + 1);
        if (total > (size_t)1 << 28) return ST_NO_MEMORY;
    }
    cx->colptr[n] = (int)total;
    cx->sky = arena_alloc(total, sizeof(double));
    if (!cx->sky) return ST_NO_MEMORY;
    zero(cx->sky, total);
    return ST_OK;
}

static double *sky_at(Ctx *cx, int i, int j) { /* i <= j */
    return &cx->sky[cx->colptr[j] + (i - cx->first[j])];
}

/*
 * Assemble the stiffness matrix into cx->sky and the pivot scales into cx->scale.
 * With `unit_members` every member gets E = 1, A = L, I = L/4 (axial EA/L = 1,
 * end rotation 4EI/L = 1) and every support spring stiffness 1: the same null
 * space as the real matrix, without its stiffness contrasts (see SUSPECT_TOL).
 */
static void assemble(Ctx *cx, int unit_members) {
    int N = cx->n_nodes;
    double spring = unit_members ? 1.0 : cx->spring;
    for (int i = 0; i < 3 * N; i++) cx->scale[i] = 0.0;
    for (int ei = 0; ei < cx->n_elems; ei++) {
        Elem *e = &cx->el[ei];
        double T[36], KT[36], Kg[36], ku[36];
        const double *k = e->k;
        if (unit_members) {
            Elem unit = *e;
            unit.E = 1.0;
            unit.A = e->L;
            unit.I = 0.25 * e->L;
            elem_local_stiffness(&unit, ku);
            condense(&unit, ku, 0);
            k = ku;
        }
        elem_transform(cx, e, T);
        /* Kg = T^T k T */
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double s = 0.0;
                for (int m = 0; m < 6; m++) s += k[i * 6 + m] * T[m * 6 + j];
                KT[i * 6 + j] = s;
            }
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double s = 0.0;
                for (int m = 0; m < 6; m++) s += T[m * 6 + i] * KT[m * 6 + j];
                Kg[i * 6 + j] = s;
            }
        int d[6];
        elem_dofs(cx, e, d);
        int nodes[2] = {e->a, e->b};
        for (int end = 0; end < 2; end++) {
            double *sc = &cx->scale[3 * nodes[end]];
            int o = 3 * end;
            /* translation scale: trace of the 2x2 block, invariant under rotation */
            sc[0] += Kg[o * 6 + o] + Kg[(o + 1) * 6 + o + 1];
            sc[2] += Kg[(o + 2) * 6 + o + 2];
        }
        for (int i = 0; i < 6; i++) {
            if (d[i] < 0) continue;
            for (int j = 0; j < 6; j++) {
                if (d[j] < d[i]) continue;
                *sky_at(cx, d[i], d[j]) += Kg[i * 6 + j];
            }
        }
    }
    for (int node = 0; node < N; node++) {
        cx->scale[3 * node + 1] = cx->scale[3 * node];
        int si = cx->sup_of[node];
        if (si < 0 || cx->spring == 0.0) continue;
        for (int d = 0; d < 3; d++) {
            if (!((cx->sup[si].mask >> d) & 1)) continue;
            int q = cx->dof[3 * node + d];
            *sky_at(cx, q, q) += spring;
            cx->scale[3 * node + d] += spring;
        }
    }
}

/* Equation number -> (node, direction), for pivot scales and mechanism modes. */
static void eq_owner(const Ctx *cx, int *owner) {
    for (int i = 0; i < 3 * cx->n_nodes; i++)
        if (cx->dof[i] >= 0) owner[cx->dof[i]] = i;
}

/*
 * Skyline LDL^T (column Crout). A pivot that vanishes against its node's stiffness
 * scale marks a mechanism: the equation is recorded and the pivot replaced by that
 * scale, which is the same as adding a support spring there; the flagged
 * equations later yield the mechanism's free motions.
 */
static int factor(Ctx *cx, const int *owner, double tol) {
    int n = cx->neq;
    cx->flagged = arena_alloc((size_t)n, sizeof(int));
    if (!cx->flagged) return ST_NO_MEMORY;
    cx->n_flagged = 0;
    cx->min_ratio = 1.0;
    double *a = cx->sky;
    for (int j = 0; j < n; j++) {
        int fj = cx->first[j];
        double *colj = a + cx->colptr[j] - fj; /* colj[i] = A(i, j) */
        for (int i = fj + 1; i < j; i++) {
            int fi = cx->first[i];
            double *coli = a + cx->colptr[i] - fi;
            int k0 = imax(fi, fj);
            double s = 0.0;
            for (int k = k0; k < i; k++) s += coli[k] * colj[k];
            colj[i] -= s;
        }
        double d = colj[j];
        for (int i = fj; i < j; i++) {
            double g = colj[i];
            double l = g / a[cx->colptr[i] + (i - cx->first[i])];
            d -= l * g;
            colj[i] = l;
        }
        double scale = cx->scale[owner[j]];
        if (!(scale > 0.0)) scale = 1.0;
        if (d < cx->min_ratio * scale) cx->min_ratio = d / scale;
        if (!(d > tol * scale)) {
            cx->flagged[cx->n_flagged++] = j;
            d = scale;
        }
        colj[j] = d;
    }
    return ST_OK;
}

static void substitute(const Ctx *cx, double *x) {
    int n = cx->neq;
    const double *a = cx->sky;
    for (int j = 0; j < n; j++) {
        int fj = cx->first[j];
        const double *colj = a + cx->colptr[j] - fj;
        double s = 0.0;
        for (int i = fj; i < j; i++) s += colj[i] * x[i];
        x[j] -= s;
    }
    for (int j = 0; j < n; j++) x[j] /= a[cx->colptr[j] + (j - cx->first[j])];
    for (int j = n - 1; j >= 0; j--) {
        int fj = cx->first[j];
        const double *colj = a + cx->colptr[j] - fj;
        double xj = x[j];
        for (int i = fj; i < j; i++) x[i] -= colj[i] * xj;
    }
}

/*
 * Second opinion on a suspiciously small pivot (SUSPECT_TOL): factor the unit-member
 * matrix into fresh storage (the real factor stays where the caller saved it), so
 * its flagged equations can be checked with mode_deformation().
 */
static int factor_unit_members(Ctx *cx, const int *owner) {
    size_t total = (size_t)cx->colptr[cx->neq];
    cx->sky = arena_alloc(total, sizeof(double));
    cx->scale = arena_alloc((size_t)3 * cx->n_nodes, sizeof(double));
    if (!cx->sky || !cx->scale) return ST_NO_MEMORY;
    zero(cx->sky, total);
    assemble(cx, 1);
    return factor(cx, owner, KINEMATIC_TOL);
}

/* The free motion belonging to flagged equation j, in equation space (see report_mechanism). */
static void flagged_motion(const Ctx *cx, const int *owner, int j, double *x) {
    zero(x, (size_t)cx->neq);
    x[j] = cx->scale[owner[j]] > 0.0 ? cx->scale[owner[j]] : 1.0;
    substitute(cx, x);
}

static double fmax_(double a, double b) { return a > b ? a : b; }

/*
 * How much a motion x (equation space) deforms the structure, relative to how much it
 * moves it: per member the elongation and the turn of each rigid end against the chord,
 * and in spring mode the restrained components at the supports.
 */
static double mode_deformation(const Ctx *cx, const double *x) {
    double deform = 0.0, motion = 0.0, lsum = 0.0;
    for (int ei = 0; ei < cx->n_elems; ei++) {
        const Elem *e = &cx->el[ei];
        double T[36], q[6], ul[6];
        int d[6];
        elem_transform(cx, e, T);
        elem_dofs(cx, e, d);
        for (int k = 0; k < 6; k++) q[k] = d[k] >= 0 ? x[d[k]] : 0.0;
        for (int i = 0; i < 6; i++) {
            double acc = 0.0;
            for (int k = 0; k < 6; k++) acc += T[i * 6 + k] * q[k];
            ul[i] = acc;
        }
        double L = e->L, chord = (ul[4] - ul[1]) / L;
        deform = fmax_(deform, fabs_(ul[3] - ul[0]) / L);
        for (int k = 0; k < 4; k++) motion = fmax_(motion, fabs_(ul[k < 2 ? k : k + 1]) / L);
        for (int end = 0; end < 2; end++) {
            if (e->rel[end]) continue;
            deform = fmax_(deform, fabs_(ul[2 + 3 * end] - chord));
            motion = fmax_(motion, fabs_(ul[2 + 3 * end]));
        }
        lsum += L;
    }
    if (cx->spring != 0.0) {
        double lavg = lsum / cx->n_elems;
        for (int si = 0; si < cx->n_supports; si++)
            for (int dd = 0; dd < 3; dd++) {
                if (!((cx->sup[si].mask >> dd) & 1)) continue;
                int k = cx->dof[3 * cx->sup[si].node + dd];
                if (k >= 0) deform = fmax_(deform, fabs_(x[k]) / (dd < 2 ? lavg : 1.0));
            }
    }
    if (!(motion > 0.0)) return 0.0; /* only unconnected freedoms move: free indeed */
    double r = deform / motion;
    return finite_(r) ? r : 0.0;
}

/* Drop the flagged equations whose motion deforms the structure (see DEFORM_TOL). */
static int keep_true_mechanisms(Ctx *cx, const int *owner) {
    double *x = arena_alloc((size_t)(cx->neq > 0 ? cx->neq : 1), sizeof(double));
    if (!x) return ST_NO_MEMORY;
    int kept = 0;
    for (int k = 0; k < cx->n_flagged; k++) {
        int j = cx->flagged[k];
        flagged_motion(cx, owner, j, x);
        if (mode_deformation(cx, x) <= DEFORM_TOL) cx->flagged[kept++] = j;
    }
    cx->n_flagged = kept;
    return ST_OK;
}

/*
 * Factor K and decide whether the structure is a mechanism. On return either
 * cx->n_flagged > 0 (a mechanism; the factor holds its free motions) or cx->sky is
 * a factor of the real matrix without replaced pivots, ready for the solve.
 */
static int assembled_finite(const Ctx *cx) {
    size_t total = (size_t)cx->colptr[cx->neq];
    for (size_t i = 0; i < total; i++)
        if (!finite_(cx->sky[i])) return 0;
    for (int i = 0; i < 3 * cx->n_nodes; i++)
        if (!finite_(cx->scale[i])) return 0;
    return 1;
}

static int factor_and_classify(Ctx *cx, const int *owner, double *detail) {
    assemble(cx, 0);
    if (!assembled_finite(cx)) { *detail = 2; return ST_NUMERICAL; } /* sums overflowed */
    *detail = 1;
    int st = factor(cx, owner, PIVOT_TOL);
    if (st) return st;
    int from_unit = 0;
    double *real_sky = cx->sky, *real_scale = cx->scale;
    if (cx->n_flagged == 0 && cx->min_ratio < SUSPECT_TOL) {
        st = factor_unit_members(cx, owner);
        if (st) return st;
        from_unit = 1;
    }
    if (cx->n_flagged == 0) {
        cx->sky = real_sky;
        cx->scale = real_scale;
        return ST_OK;
    }
    st = keep_true_mechanisms(cx, owner);
    if (st || cx->n_flagged > 0) return st;
    /* small pivots, but every candidate motion deforms a member: stable after all */
    cx->sky = real_sky;
    cx->scale = real_scale;
    if (from_unit) return ST_OK; /* the real factor had no replaced pivot */
    zero(cx->sky, (size_t)cx->colptr[cx->neq]);
    assemble(cx, 0);
    st = factor(cx, owner, 0.0);
    if (st) return st;
    return cx->n_flagged > 0 ? ST_NUMERICAL : ST_OK; /* not even positive: beyond f64 */
}

/* ------------------------------------------------------------ loads */

static void rotate_to_basis(const Ctx *cx, int node, double fx, double fy, double *f1, double *f2) {
    double c = cx->bc[node], s = cx->bs[node];
    *f1 = c * fx + s * fy;
    *f2 = -s * fx + c * fy;
}

/* Condensed fixed-end forces of element ei in case lc (local). */
static void elem_fef(const Ctx *cx, int ei, int lc, double f[6]) {
    const Elem *e = &cx->el[ei];
    fixed_end_forces(cx, ei, lc, f);
    if (e->rel[0] || e->rel[1]) {
        double k[36];
        elem_local_stiffness(e, k);
        condense(e, k, f);
    }
}

/* Applied nodal load of case lc in the nodal basis: F[3*node + d]. */
static void nodal_loads(const Ctx *cx, int lc, double *F) {
    zero(F, (size_t)3 * cx->n_nodes);
    for (int i = 0; i < cx->n_nloads; i++) {
        const double *r = cx->nload + (size_t)i * REC_NLOAD;
        if ((int)r[0] != lc) continue;
        int node = (int)r[1];
        double f1, f2;
        rotate_to_basis(cx, node, r[2], r[3], &f1, &f2);
        F[3 * node] += f1;
        F[3 * node + 1] += f2;
        F[3 * node + 2] += r[4];
    }
}

/* ------------------------------------------------------ internal forces */

typedef struct {
    double s0, s1;
    double n[3], v[3], m[4];
} Piece;

/*
 * Sorted, merged cut positions of an element in one case: 0, L, every concentrated
 * load strictly inside and both ends of every distributed load.
 */
static int element_cuts(const Ctx *cx, int ei, int lc, double *cuts) {
    const Elem *e = &cx->el[ei];
    double L = e->L, tol = POS_TOL * L;
    int n = 0;
    cuts[n++] = 0.0;
    cuts[n++] = L;
    for (int k = cx->el_first[ei]; k < cx->el_first[ei + 1]; k++) {
        const double *r = cx->eload + (size_t)cx->el_loads[k] * REC_ELOAD;
        if ((int)r[0] != lc) continue;
        cuts[n++] = r[3];
        if ((int)r[2] == LOAD_DISTRIBUTED) cuts[n++] = r[4];
    }
    for (int i = 1; i < n; i++) { /* insertion sort: few cuts per element */
        double v = cuts[i];
        int j = i - 1;
        while (j >= 0 && cuts[j] > v) { cuts[j + 1] = cuts[j]; j--; }
        cuts[j + 1] = v;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        double v = cuts[i] < 0.0 ? 0.0 : (cuts[i] > L ? L : cuts[i]);
        if (v < tol) v = 0.0;
        if (v > L - tol) v = L;
        if (m == 0 || v - cuts[m - 1] > tol) cuts[m++] = v;
    }
    return m;
}

/*
 * Internal forces of one element as exact polynomials per piece between cuts
 * (FORMAT.md O2): start from the end-A force, add each load where it acts.
 * Inside a piece with load q(t) = qa + qb t (local components):
 *   n = n0 + qxa t + qxb t^2/2,  v = v0 + qya t + qyb t^2/2,
 *   m = m0 - v0 t - qya t^2/2 - qyb t^3/6   (so dm/ds = -v).
 */
static int element_pieces(const Ctx *cx, int ei, int lc, const double fe[6], const double *cuts,
                          int ncut, Piece *out) {
    const Elem *e = &cx->el[ei];
    double L = e->L, tol = POS_TOL * L;
    double n0 = fe[0], v0 = fe[1], m0 = fe[2];
    int np = 0;
    for (int c = 0; c < ncut; c++) {
        double s = cuts[c];
        /* concentrated loads at this cut act just before the piece that starts here */
        for (int k = cx->el_first[ei]; k < cx->el_first[ei + 1]; k++) {
            const double *r = cx->eload + (size_t)cx->el_loads[k] * REC_ELOAD;
            if ((int)r[0] != lc || (int)r[2] == LOAD_DISTRIBUTED) continue;
            double p = r[3] < tol ? 0.0 : (r[3] > L - tol ? L : r[3]);
            if (fabs_(p - s) > tol) continue;
            if ((int)r[2] == LOAD_FORCE) { n0 += r[4]; v0 += r[5]; }
            else m0 += r[4];
        }
        if (c == ncut - 1) {
            /* closing state at s = L: a zero-length piece carries it */
            Piece *pc = &out[np++];
            pc->s0 = pc->s1 = s;
            pc->n[0] = n0; pc->n[1] = pc->n[2] = 0.0;
            pc->v[0] = v0; pc->v[1] = pc->v[2] = 0.0;
            pc->m[0] = m0; pc->m[1] = pc->m[2] = pc->m[3] = 0.0;
            break;
        }
        double s1 = cuts[c + 1], h = s1 - s, mid = 0.5 * (s + s1);
        double qxa = 0.0, qxb = 0.0, qya = 0.0, qyb = 0.0;
        for (int k = cx->el_first[ei]; k < cx->el_first[ei + 1]; k++) {
            const double *r = cx->eload + (size_t)cx->el_loads[k] * REC_ELOAD;
            if ((int)r[0] != lc || (int)r[2] != LOAD_DISTRIBUTED) continue;
            double a = r[3], b = r[4];
            if (!(mid > a && mid < b)) continue;
            double w = b - a;
            double sx = (r[7] - r[5]) / w, sy = (r[8] - r[6]) / w;
            qxa += r[5] + sx * (s - a);
            qya += r[6] + sy * (s - a);
            qxb += sx;
            qyb += sy;
        }
        Piece *pc = &out[np++];
        pc->s0 = s; pc->s1 = s1;
        pc->n[0] = n0; pc->n[1] = qxa; pc->n[2] = 0.5 * qxb;
        pc->v[0] = v0; pc->v[1] = qya; pc->v[2] = 0.5 * qyb;
        pc->m[0] = m0; pc->m[1] = -v0; pc->m[2] = -0.5 * qya; pc->m[3] = -qyb / 6.0;
        n0 += qxa * h + 0.5 * qxb * h * h;
        double v1 = v0 + qya * h + 0.5 * qyb * h * h;
        m0 += -v0 * h - 0.5 * qya * h * h - qyb * h * h * h / 6.0;
        v0 = v1;
    }
    return np;
}

static double poly3(const double *c, double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; }

/* max |m| on a piece: ends and the zeros of v = -dm/dt inside. */
static void piece_max(const Piece *p, double *best, double *where) {
    double h = p->s1 - p->s0, ts[4];
    int nt = 0;
    ts[nt++] = 0.0;
    ts[nt++] = h;
    double a = p->v[2], b = p->v[1], c = p->v[0];
    if (a != 0.0) {
        double disc = b * b - 4.0 * a * c;
        if (disc >= 0.0) {
            double sq = __builtin_sqrt(disc);
            double q = -0.5 * (b + (b >= 0.0 ? sq : -sq));
            if (q != 0.0) { ts[nt++] = q / a; ts[nt++] = c / q; }
        }
    } else if (b != 0.0) {
        ts[nt++] = -c / b;
    }
    for (int i = 0; i < nt; i++) {
        double t = ts[i];
        if (!(t >= 0.0 && t <= h)) continue;
        double m = fabs_(poly3(p->m, t));
        if (m > *best) { *best = m; *where = p->s0 + t; }
    }
}

/* ------------------------------------------------------------ solve */

static double *g_out;

static int solve_all(Ctx *cx) {
    int N = cx->n_nodes, M = cx->n_elems, S = cx->n_supports, n = cx->neq;
    /* output size: pieces per element and case <= 2 + 2 * loads on it */
    size_t per_case = (size_t)3 * N + (size_t)3 * S + (size_t)6 * M + 4;
    int max_cuts = 2;
    for (int ei = 0; ei < M; ei++) {
        int nl = cx->el_first[ei + 1] - cx->el_first[ei];
        if (2 + 2 * nl > max_cuts) max_cuts = 2 + 2 * nl;
    }
    /* pieces per element and case <= its cuts <= 2 + 2 * its loads in that case */
    size_t piece_total = (size_t)cx->n_cases * (size_t)M * 2 + (size_t)cx->n_eloads * 2;
    size_t out_len = HDR_OUT + (size_t)cx->n_cases * per_case + piece_total * REC_PIECE;
    double *out = arena_alloc(out_len, sizeof(double));
    double *F = arena_alloc((size_t)3 * N, sizeof(double));
    double *x = arena_alloc((size_t)(n > 0 ? n : 1), sizeof(double));
    double *u = arena_alloc((size_t)3 * N, sizeof(double));
    double *cuts = arena_alloc((size_t)max_cuts, sizeof(double));
    Piece *pieces = arena_alloc((size_t)max_cuts, sizeof(Piece));
    if (!out || !F || !x || !u || !cuts || !pieces) return ST_NO_MEMORY;
    g_out = out;
    double *w = out + HDR_OUT;
    for (int lc = 0; lc < cx->n_cases; lc++) {
        nodal_loads(cx, lc, F);
        zero(x, (size_t)n);
        for (int i = 0; i < 3 * N; i++)
            if (cx->dof[i] >= 0) x[cx->dof[i]] += F[i];
        for (int ei = 0; ei < M; ei++) {
            if (cx->el_first[ei + 1] == cx->el_first[ei]) continue;
            const Elem *e = &cx->el[ei];
            double f[6], T[36];
            int d[6];
            elem_fef(cx, ei, lc, f);
            elem_transform(cx, e, T);
            elem_dofs(cx, e, d);
            for (int j = 0; j < 6; j++) {
                double s = 0.0;
                for (int i = 0; i < 6; i++) s += T[i * 6 + j] * f[i];
                if (d[j] >= 0) x[d[j]] -= s;
            }
        }
        substitute(cx, x);
        /* displacements (nodal basis -> world) */
        for (int node = 0; node < N; node++) {
            double q[3];
            for (int d = 0; d < 3; d++) {
                int k = cx->dof[3 * node + d];
                q[d] = k >= 0 ? x[k] : 0.0;
            }
            double c = cx->bc[node], s = cx->bs[node];
            u[3 * node] = q[0];
            u[3 * node + 1] = q[1];
            u[3 * node + 2] = q[2];
            w[3 * node] = c * q[0] - s * q[1];
            w[3 * node + 1] = s * q[0] + c * q[1];
            w[3 * node + 2] = q[2];
        }
        double *react = w + 3 * N;
        double *ends = react + 3 * S;
        double *mx = ends + 6 * M;
        double *npieces = mx + 3;
        double *pw = npieces + 1;
        zero(react, (size_t)3 * S);
        /* reaction = sum of element end forces at the node - applied nodal load */
        for (int si = 0; si < S; si++)
            for (int d = 0; d < 3; d++) react[3 * si + d] = -F[3 * cx->sup[si].node + d];
        double best = -1.0, best_e = 0.0, best_s = 0.0;
        int count = 0;
        for (int ei = 0; ei < M; ei++) {
            const Elem *e = &cx->el[ei];
            double T[36], ue[6], fe[6];
            elem_transform(cx, e, T);
            for (int k = 0; k < 3; k++) { ue[k] = u[3 * e->a + k]; ue[3 + k] = u[3 * e->b + k]; }
            double ul[6];
            for (int i = 0; i < 6; i++) {
                double s = 0.0;
                for (int j = 0; j < 6; j++) s += T[i * 6 + j] * ue[j];
                ul[i] = s;
            }
            elem_fef(cx, ei, lc, fe);
            for (int i = 0; i < 6; i++) {
                double s = fe[i];
                for (int j = 0; j < 6; j++) s += e->k[i * 6 + j] * ul[j];
                fe[i] = s;
            }
            if (e->rel[0]) fe[2] = 0.0;
            if (e->rel[1]) fe[5] = 0.0;
            for (int i = 0; i < 6; i++) ends[6 * ei + i] = fe[i];
            int nodes[2] = {e->a, e->b};
            for (int end = 0; end < 2; end++) {
                int si = cx->sup_of[nodes[end]];
                if (si < 0) continue;
                /* nodal-basis end force = T_end^T f_end */
                for (int j = 0; j < 3; j++) {
                    double s = 0.0;
                    for (int i = 0; i < 3; i++) s += T[(3 * end + i) * 6 + 3 * end + j] * fe[3 * end + i];
                    react[3 * si + j] += s;
                }
            }
            int ncut = element_cuts(cx, ei, lc, cuts);
            int np = element_pieces(cx, ei, lc, fe, cuts, ncut, pieces);
            double eb = -1.0, es = 0.0;
            for (int k = 0; k < np; k++) {
                const Piece *p = &pieces[k];
                /* The closing piece is the state past the loads at s = L: the action on
                 * node B, not a section of the link (at s = 0 the node's side is not
                 * counted either), so |m| there is not the link's moment. */
                if (k < np - 1) piece_max(p, &eb, &es);
                double *r = pw + (size_t)count * REC_PIECE;
                r[0] = ei; r[1] = p->s0; r[2] = p->s1;
                for (int t = 0; t < 3; t++) { r[3 + t] = p->n[t]; r[6 + t] = p->v[t]; }
                for (int t = 0; t < 4; t++) r[9 + t] = p->m[t];
                count++;
            }
            if (eb > best) { best = eb; best_e = ei; best_s = es; }
        }
        for (int si = 0; si < S; si++)
            for (int d = 0; d < 3; d++)
                if (!((cx->sup[si].mask >> d) & 1)) react[3 * si + d] = 0.0;
        mx[0] = best; mx[1] = best_e; mx[2] = best_s;
        npieces[0] = count;
        w = pw + (size_t)count * REC_PIECE;
    }
    size_t used = (size_t)(w - out);
    for (size_t i = HDR_OUT; i < used; i++)
        if (!finite_(out[i])) return ST_NUMERICAL;
    out[0] = ST_OK;
    out[1] = (double)used;
    out[2] = 0;
    out[3] = 0;
    return ST_OK;
}

/*
 * Mechanism: for each flagged equation j, solving (K + sigma e_j e_j^T) x = sigma e_j
 * gives the free motion with x_j = 1 (K is PSD, so the singular leading block has a
 * null vector of K). Rotations of nodes with only hinged ends and an applied couple
 * are free too; they are not equations at all.
 */
static int report_mechanism(Ctx *cx, const int *owner, int n_free_rot, const int *free_rot) {
    int N = cx->n_nodes;
    int modes = cx->n_flagged + n_free_rot;
    if (modes > cx->max_modes) modes = cx->max_modes;
    size_t len = HDR_OUT + (size_t)modes * 3 * N;
    double *out = arena_alloc(len, sizeof(double));
    double *x = arena_alloc((size_t)(cx->neq > 0 ? cx->neq : 1), sizeof(double));
    if (!out || !x) return ST_NO_MEMORY;
    g_out = out;
    double *w = out + HDR_OUT;
    int written = 0;
    for (int k = 0; k < n_free_rot && written < modes; k++, written++) {
        zero(w, (size_t)3 * N);
        w[3 * free_rot[k] + 2] = 1.0;
        w += 3 * N;
    }
    for (int k = 0; k < cx->n_flagged && written < modes; k++, written++) {
        flagged_motion(cx, owner, cx->flagged[k], x);
        zero(w, (size_t)3 * N);
        for (int node = 0; node < N; node++) {
            double q[3];
            for (int d = 0; d < 3; d++) {
                int e = cx->dof[3 * node + d];
                q[d] = e >= 0 ? x[e] : 0.0;
                if (!finite_(q[d])) q[d] = 0.0;
            }
            double c = cx->bc[node], s = cx->bs[node];
            w[3 * node] = c * q[0] - s * q[1];
            w[3 * node + 1] = s * q[0] + c * q[1];
            w[3 * node + 2] = q[2];
        }
        w += 3 * N;
    }
    out[0] = ST_MECHANISM;
    out[1] = (double)(w - out);
    out[2] = cx->n_flagged + n_free_rot;
    out[3] = written;
    return ST_MECHANISM;
}

/* ------------------------------------------------------------ exports */

__attribute__((export_name("fc_abi_version"))) int fc_abi_version(void) { return ABI_VERSION; }

__attribute__((export_name("fc_heap_base"))) int fc_heap_base(void) {
    return (int)(uintptr_t)&__heap_base;
}

/* Failure output when nothing else could be written: placed right after the input. */
static int fail(uintptr_t at, int status, double detail) {
    arena_top = at;
    double *out = arena_alloc(HDR_OUT, sizeof(double));
    if (!out) return -status;
    out[0] = status;
    out[1] = HDR_OUT;
    out[2] = detail;
    out[3] = 0;
    return (int)(uintptr_t)out;
}

/*
 * Solve the model at in_off (n_in doubles). Returns the byte offset of the output
 * block (status, length, detail, extra, ...), or a negative status when not even
 * that could be written.
 */
__attribute__((export_name("fc_solve"))) int fc_solve(int in_off, int n_in) {
    uintptr_t base = (uintptr_t)&__heap_base;
    uintptr_t in = (uintptr_t)(unsigned)in_off;
    uintptr_t have = (uintptr_t)__builtin_wasm_memory_size(0) * 65536u;
    if (n_in < 0 || in < base || (in & 7u) || in + (uintptr_t)n_in * 8u > have || in + (uintptr_t)n_in * 8u < in)
        return -ST_BAD_INPUT;
    uintptr_t after = in + (uintptr_t)n_in * 8u;
    arena_top = after;
    Ctx cx;
    double detail = 0.0;
    int st = read_input(&cx, (const double *)in, n_in, &detail);
    if (st) return fail(after, st, detail);
    double check = ((const double *)in)[9];
    if (check > 0.0 && !layout_clear(&cx, check, &detail)) return fail(after, ST_LOOK_CLOSER, detail);
    st = number_dofs(&cx);
    if (st) return fail(after, st, 0);
    st = build_skyline(&cx);
    if (st) return fail(after, st, 0);
    int *owner = arena_alloc((size_t)(cx.neq > 0 ? cx.neq : 1), sizeof(int));
    if (!owner) return fail(after, ST_NO_MEMORY, 0);
    eq_owner(&cx, owner);
    st = factor_and_classify(&cx, owner, &detail);
    if (st) return fail(after, st, st == ST_NUMERICAL ? detail : 0.0);
    detail = 0.0; /* a later ST_NUMERICAL means the results themselves overflow */
    /* free rotations with a couple on them (any case) */
    int *free_rot = arena_alloc((size_t)cx.n_nodes, sizeof(int));
    if (!free_rot) return fail(after, ST_NO_MEMORY, 0);
    int n_free_rot = 0;
    for (int i = 0; i < cx.n_nloads; i++) {
        const double *r = cx.nload + (size_t)i * REC_NLOAD;
        int node = (int)r[1];
        if (r[4] != 0.0 && cx.dof[3 * node + 2] == DOF_ABSENT) {
            int dup = 0;
            for (int k = 0; k < n_free_rot; k++) dup |= free_rot[k] == node;
            if (!dup) free_rot[n_free_rot++] = node;
        }
    }
    if (cx.n_flagged > 0 || n_free_rot > 0) {
        st = report_mechanism(&cx, owner, n_free_rot, free_rot);
        if (st == ST_NO_MEMORY) return fail(after, st, 0);
        return (int)(uintptr_t)g_out;
    }
    st = solve_all(&cx);
    if (st) return fail(after, st, detail);
    return (int)(uintptr_t)g_out;
}
