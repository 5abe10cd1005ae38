"""The compiled event-driven core of the simulator (numba, ``cache=True``).

Model (``DESIGN.md``, "Physics"): every moving disc slides in a straight line
and decelerates at a constant rate ``a`` (Coulomb sliding friction), so a disc
launched at speed ``w`` from ``p0`` along the unit vector ``u`` is at

    p(τ) = p0 + u (w τ − a τ² / 2),   0 ≤ τ ≤ w / a,

and stops after ``w² / (2 a)``.  Collisions are instantaneous impulses along
the line of centres: equal masses and restitution ``e`` for disc–disc, a
fixed peg and restitution ``e_peg`` for disc–peg; there is no friction at a
contact and no spin.

Between events every motion is known in closed form, so the next event is
found by solving for its time rather than stepping:

* a moving disc against anything fixed (a resting disc, a peg, a circle of
  the board) is a quadratic in the distance ``s`` travelled, converted to
  time with ``τ = 2 s / (w + sqrt(w² − 2 a s))``;
* two moving discs: their squared separation is a quartic in ``τ`` on the
  interval where both move; its first root is bracketed between the roots
  of its derivative (a cubic, itself bracketed by the roots of the
  quadratic second derivative) and refined by safeguarded Newton steps.

Only approaching pairs collide, so discs placed touching never trigger
endless zero-time events; a pair counts as approaching only above rounding
noise (``APPROACH_COS``, ``APPROACH_PAIR``).  One disc pushing another slowly
is, in this model, an infinite sequence of ever-closer bounces (inelastic
collapse, a Zeno sequence): after ``stick_after`` bounces of the same pair in
one shot, their next contact is perfectly inelastic and they leave it with
their common (centre-of-mass) velocity, so they slide on together; a disc
that bounces off the same peg that often loses its normal speed there
(restitution 0).  Both conserve momentum (disc–disc) and never add energy.
Contacts that happen at the same instant (to within ``SIMULTANEOUS_GAP``) are
resolved together: contacts that share a disc form one impulse system, solved
jointly (see :func:`_solve_joint`), so a shot at the seam of two touching
discs pushes both alike and symmetric positions give symmetric outcomes.  A
contact alone keeps the two-body formulas.  Relabelling the discs (permuting
their indices) gives the same statuses, contacts and flags, and rest positions
equal to rounding (tested to 1e-12 inch; in 60,000 examples they were equal
to the bit).  The joint solve visits contacts in an order of their own (by
the midpoint of the pair, not by index), and every disc's own event (a stop,
a line, the hole, the ditch) that falls at the instant of the one found first
is taken with it.  What is left to index order is an exact tie between a
contact and another disc's own event, taken one after the other.
A speed under ``v_rest`` after a collision counts as rest (the disc would
travel less than ``v_rest² / 2a``, far below a nanometre).  The number of
events per shot is capped and reaching the cap is reported, never hidden.

20 hole: a disc drops when its centre has stayed over the hole for the time
it takes to fall the hole's depth, ``sqrt(2 h / g)``, or stops with its centre
over the hole (it then drops once that time has passed).  A disc whose centre
stays outside the hole is a hanger.  A disc whose centre passes the surface
radius falls into the ditch.

The shooting line (R5): a disc reaches it when its rim touches the line's
near edge, i.e. its centre is ``P_LINE_R`` from the centre (the caller passes
12 − 1/32 − 0.625 = 11.34375 in), and it is "beyond the shooting line" from
then until it is fully inside again (``LINE_OUT`` and ``LINE_IN``).  A disc
launched with its rim on the line (the shot disc, placed on it) counts only
after it has once been fully inside: until then it is not beyond the line.

The kernels take only arrays and floats; objects are unpacked once by the
caller (``crokinole.physics.simulate``).  They release the GIL (``nogil``),
so CPU players thinking in worker threads do not hold up the server.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit, types

# Event kinds (also the values of crokinole.physics.EventKind).
LAUNCH = 0
STOP = 1
DISC = 2
PEG = 3
LINE_OUT = 4
LINE_IN = 5
HOLE_ENTER = 6
HOLE_EXIT = 7
DROP = 8
DITCH = 9

# Disc statuses (also the codes of crokinole.physics.DiscStatus).
ON_BOARD = 0
IN_HOLE = 1
IN_DITCH = 2

# Layout of the float parameter vector built by ``params_of``.
P_DISC_R = 0
P_PEG_R = 1
P_DECEL = 2
P_E_DISC = 3
P_E_PEG = 4
P_SURFACE_R = 5
P_LINE_R = 6  # centre distance at which the rim touches the shooting line
P_HOLE_R = 7
P_DROP_T = 8
P_V_REST = 9
P_STICK_AFTER = 10
N_PARAMS = 11

# Columns of the float event log.
E_T = 0
E_X = 1
E_Y = 2
E_VX = 3
E_VY = 4
# Columns of the int event log.
E_DISC = 0
E_KIND = 1
E_OTHER = 2
E_BEYOND = 3

INF = math.inf
#: Scratch arrays of one simulation (see ``_workspace``).
Workspace = tuple[np.ndarray, ...]
# Approach thresholds: a touching pair counts as approaching only when its
# normal approach is above rounding noise.  Below them a disc could sink into
# another by under 1e-11 inch over the whole board, far inside the 1e-9 inch
# overlap tolerance, while a contact left applied to rounding noise could
# repeat forever at zero time.
APPROACH_COS = 1e-12  # u·(q − c) for a ray (inches; |q − c| is about 1)
APPROACH_PAIR = 1e-9  # 2 A·B for two moving discs (in²/s)
LINE_TOLERANCE = 1e-9  # inches: a disc this close to the shooting line is on it
PAIR_SKIN = 2e-10  # inches: (D − skin/2)² ≈ D² − skin·D
# Simultaneous contacts: contacts found within GROUP_WINDOW seconds of the
# first one whose discs are within SIMULTANEOUS_GAP inches of touching at its
# time are resolved together, as one impulse system.  Exact ties are what
# symmetry produces (a shot at the seam of two touching discs); the gap allows
# for the rounding of positions that are symmetric on paper (the pegs'
# coordinates come from cos/sin).  1e-10 inch is a tenth of the overlap
# tolerance: far below anything a player could set up or see.
SIMULTANEOUS_GAP = 1e-10
GROUP_WINDOW = 1e-6
# The joint solve (projected Gauss–Seidel) stops when no impulse changes by
# more than this fraction of the fastest approach, or after MAX_SWEEPS sweeps.
SOLVE_TOLERANCE = 1e-15
MAX_SWEEPS = 1000

# One signature for each helper called with constants (see ``prepare``):
# numba types a constant argument as its literal value and would compile one
# version of the helper per combination of literals (``_log`` alone took 32,
# most of a cold compile).  Read-only arrays in a signature accept writable ones.
_F8 = types.float64
_I8 = types.int64
_B = types.boolean
_F1 = types.Array(_F8, 1, "C")
_F2 = types.Array(_F8, 2, "C")
_F1R = types.Array(_F8, 1, "C", readonly=True)
_F2R = types.Array(_F8, 2, "C", readonly=True)
_I1 = types.Array(_I8, 1, "C")
_I2 = types.Array(_I8, 2, "C")
_B1 = types.Array(_B, 1, "C")
_B2 = types.Array(_B, 2, "C")
_BOUNCES = types.Array(types.int32, 2, "C")
_LOG_SIG = _I8(_I8, _B, _F2, _I2, _F8, _I8, _I8, _I8, _B, _F8, _F8, _F8, _F8)
_PAIR = types.UniTuple(_F8, 2)  # type: ignore[no-untyped-call]
_START_SIG = _PAIR(_I8, _F8, _F8, _F8, _F8, _F8, _F8, _F1, _F1, _F1, _F1, _F1, _F1)
_SOLVE_SIG = types.none(
    _I8, _I8, _I1, _I1, _B1, _I1, _F1, _F1, _F1, _F1, _F1, _F1, _F1, _F1, _F1, _F1, _I1
)
_RESOLVE_SIG = _I8(
    _I8, _I1, _I1, _B1, _I8, _F8, _F1R, _F2R, _BOUNCES, _B1,
    _F1, _F1, _F1, _F1, _F1, _F1, _F2, _I2, _F2, _I2, _B2, _B2, _I8, _B, _F2, _I2,
)  # fmt: skip


@njit(cache=True)
def _entry_distance(
    qx: float, qy: float, ux: float, uy: float, cx: float, cy: float, d2: float
) -> float:
    """Distance along the ray q + s u at which it first comes within sqrt(d2) of c.

    0 if it is already within and approaching; inf if it never enters.
    """
    dx = qx - cx
    dy = qy - cy
    b = ux * dx + uy * dy
    if b >= -APPROACH_COS:
        return INF
    cc = dx * dx + dy * dy - d2
    if cc <= 0.0:
        return 0.0
    disc = b * b - cc
    if disc < 0.0:
        return INF
    return cc / (-b + math.sqrt(disc))


@njit(cache=True)
def _exit_distance(qx: float, qy: float, ux: float, uy: float, r2: float) -> float:
    """Distance along the ray q + s u at which it leaves the circle |p|² = r2 about the origin."""
    b = ux * qx + uy * qy
    cc = qx * qx + qy * qy - r2
    disc = b * b - cc
    if disc < 0.0:
        return 0.0
    root = math.sqrt(disc)
    if b <= 0.0:
        s = -b + root
    else:
        s = -cc / (b + root)
    return max(s, 0.0)


@njit(cache=True)
def _time_for(s: float, w: float, a: float) -> float:
    """Time for a disc at speed w decelerating at a to travel s; inf if it stops first."""
    if s <= 0.0:
        return 0.0
    disc = w * w - 2.0 * a * s
    if disc < 0.0:
        return INF
    return 2.0 * s / (w + math.sqrt(disc))


@njit(cache=True)
def _quartic(c4: float, c3: float, c2: float, c1: float, c0: float, t: float) -> float:
    return (((c4 * t + c3) * t + c2) * t + c1) * t + c0


@njit(cache=True)
def _quartic_d(c4: float, c3: float, c2: float, c1: float, t: float) -> float:
    return ((4.0 * c4 * t + 3.0 * c3) * t + 2.0 * c2) * t + c1


@njit(cache=True)
def _derivative_root(c4: float, c3: float, c2: float, c1: float, lo: float, hi: float) -> float:
    """Root of the cubic f' in [lo, hi], where f' changes sign and is monotone (bisection)."""
    flo = _quartic_d(c4, c3, c2, c1, lo)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        fm = _quartic_d(c4, c3, c2, c1, mid)
        if (fm > 0.0) == (flo > 0.0):
            lo = mid
            flo = fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


@njit(cache=True)
def _descending_root(
    c4: float, c3: float, c2: float, c1: float, c0: float, lo: float, hi: float
) -> float:
    """Last point with f > 0 before f reaches 0 on [lo, hi], f decreasing there.

    Safeguarded Newton from the left, with a bisection step whenever Newton
    leaves the bracket or fails to halve it.  Returning the left end of the
    final bracket keeps the discs (just) apart at the contact.
    """
    width = hi - lo
    x = lo
    for _ in range(200):
        fx = _quartic(c4, c3, c2, c1, c0, x)
        if fx > 0.0:
            lo = x
        else:
            hi = x
        if hi - lo <= 4e-16 * max(hi, 1e-300) or hi - lo <= 1e-300:
            break
        dfx = _quartic_d(c4, c3, c2, c1, x)
        step_ok = False
        if dfx < 0.0 and fx > 0.0:
            nx = x - fx / dfx
            if lo < nx < hi and (hi - lo) < 0.5 * width:
                x = nx
                step_ok = True
        if not step_ok:
            x = 0.5 * (lo + hi)
            if x <= lo or x >= hi:
                break
        width = hi - lo
    return lo


@njit(cache=True)
def _moving_pair_contact(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    cx: float,
    cy: float,
    d2: float,
    tmax: float,
) -> float:
    """First time in [0, tmax] at which |A + B τ + C τ²|² falls to d2, or inf.

    A, B, C are the relative position, velocity and half-acceleration of two
    moving discs; f(τ) = |Δ(τ)|² − d2 is a quartic.
    """
    c4 = cx * cx + cy * cy
    c3 = 2.0 * (bx * cx + by * cy)
    c2 = bx * bx + by * by + 2.0 * (ax * cx + ay * cy)
    c1 = 2.0 * (ax * bx + ay * by)
    c0 = ax * ax + ay * ay - d2
    if c0 <= 0.0:
        if c1 < -APPROACH_PAIR:
            return 0.0
        # Touching but not (yet) approaching: their paths curve, so they may
        # press together later.  Judge that against a contact distance a skin
        # of PAIR_SKIN smaller, so the contact is found once they do.
        c0 += PAIR_SKIN * math.sqrt(d2)
    if tmax <= 0.0:
        return INF
    # Split [0, tmax] where f'' vanishes: f' is monotone on each piece.
    q2 = 12.0 * c4
    q1 = 6.0 * c3
    q0 = 2.0 * c2
    splits = np.empty(4)
    n = 0
    splits[n] = 0.0
    n += 1
    if q2 != 0.0:
        disc = q1 * q1 - 4.0 * q2 * q0
        if disc > 0.0:
            root = math.sqrt(disc)
            if q1 >= 0.0:
                r1 = (-q1 - root) / (2.0 * q2)
            else:
                r1 = (-q1 + root) / (2.0 * q2)
            r2 = q0 / (q2 * r1) if r1 != 0.0 else -q1 / q2
            lo_r = min(r1, r2)
            hi_r = max(r1, r2)
            if 0.0 < lo_r < tmax:
                splits[n] = lo_r
                n += 1
            if 0.0 < hi_r < tmax and hi_r != lo_r:
                splits[n] = hi_r
                n += 1
    elif q1 != 0.0:
        r = -q0 / q1
        if 0.0 < r < tmax:
            splits[n] = r
            n += 1
    splits[n] = tmax
    n += 1
    # Roots of f' on those pieces: f is monotone between consecutive points.
    crit = np.empty(5)
    m = 0
    crit[m] = 0.0
    m += 1
    for k in range(n - 1):
        lo = splits[k]
        hi = splits[k + 1]
        dlo = _quartic_d(c4, c3, c2, c1, lo)
        dhi = _quartic_d(c4, c3, c2, c1, hi)
        if (dlo < 0.0 < dhi) or (dhi < 0.0 < dlo):
            crit[m] = _derivative_root(c4, c3, c2, c1, lo, hi)
            m += 1
    crit[m] = tmax
    m += 1
    for k in range(m - 1):
        lo = crit[k]
        hi = crit[k + 1]
        if hi <= lo:
            continue
        flo = _quartic(c4, c3, c2, c1, c0, lo)
        fhi = _quartic(c4, c3, c2, c1, c0, hi)
        if flo > 0.0 and fhi <= 0.0:
            return _descending_root(c4, c3, c2, c1, c0, lo, hi)
    return INF


@njit(cache=True)
def _advance(
    sx: float, sy: float, ux: float, uy: float, w: float, t0: float, now: float, a: float
) -> tuple[float, float, float]:
    """Centre and speed left at ``now`` of a disc whose motion began at ``t0``."""
    if w <= 0.0:
        return sx, sy, 0.0
    tau = now - t0
    left = w - a * tau
    if left < 0.0:
        left = 0.0
    s = tau * (w + left) * 0.5
    return sx + ux * s, sy + uy * s, left


@njit(cache=True)
def _start_motion(
    i: int,
    x: float,
    y: float,
    vx: float,
    vy: float,
    now: float,
    v_rest: float,
    sx: np.ndarray,
    sy: np.ndarray,
    ux: np.ndarray,
    uy: np.ndarray,
    w: np.ndarray,
    t0: np.ndarray,
) -> tuple[float, float]:
    """Begin disc i's new motion at ``now``; under ``v_rest`` it rests.

    Returns the velocity it keeps (zero when it rests).
    """
    sx[i] = x
    sy[i] = y
    t0[i] = now
    speed = math.hypot(vx, vy)
    if speed > v_rest:
        w[i] = speed
        ux[i] = vx / speed
        uy[i] = vy / speed
        return vx, vy
    w[i] = 0.0
    return 0.0, 0.0


@njit(cache=True)
def _state_now(
    d: int,
    tag: int,
    now: float,
    a: float,
    sx: np.ndarray,
    sy: np.ndarray,
    ux: np.ndarray,
    uy: np.ndarray,
    w: np.ndarray,
    t0: np.ndarray,
    stamp: np.ndarray,
    gx: np.ndarray,
    gy: np.ndarray,
    gvx: np.ndarray,
    gvy: np.ndarray,
) -> None:
    """Centre and velocity of disc d at ``now`` into gx, gy, gvx, gvy (once per tag)."""
    if stamp[d] == tag:
        return
    stamp[d] = tag
    x, y, left = _advance(sx[d], sy[d], ux[d], uy[d], w[d], t0[d], now, a)
    gx[d] = x
    gy[d] = y
    gvx[d] = ux[d] * left
    gvy[d] = uy[d] * left


@njit(cache=True)
def _root(parent: np.ndarray, d: int) -> int:
    while parent[d] != d:
        d = parent[d]
    return d


@njit(cache=True)
def _solve_joint(
    root: int,
    m: int,
    g_i: np.ndarray,
    g_o: np.ndarray,
    g_peg: np.ndarray,
    g_root: np.ndarray,
    g_nx: np.ndarray,
    g_ny: np.ndarray,
    g_e: np.ndarray,
    lam: np.ndarray,
    gvx: np.ndarray,
    gvy: np.ndarray,
    v0x: np.ndarray,
    v0y: np.ndarray,
    cvx: np.ndarray,
    cvy: np.ndarray,
    counted: np.ndarray,
) -> None:
    """Resolve the simultaneous contacts of one connected group together.

    Frictionless impulses along each contact normal, found in two phases
    (Poisson's hypothesis): compression, the smallest impulses λ ≥ 0 after
    which no contact approaches (the linear complementarity problem, solved
    by projected Gauss–Seidel to convergence: its answer does not depend on
    the order of the contacts); then restitution, each contact's compression
    impulse again times its restitution.  Disc–disc impulses are internal, so
    momentum is conserved.  With one restitution for the whole group the
    kinetic energy cannot rise (the compression is a projection and the
    restitution adds back at most e² of what it took); with mixed ones (a
    disc touching a peg and a disc at once) it is checked, and the group falls
    back to its smallest restitution if it would rise.

    ``g_nx, g_ny`` point from disc ``g_i`` to its partner (disc or peg);
    velocities are per unit mass (all discs weigh the same).
    """
    scale = 0.0
    for k in range(m):
        if g_root[k] != root:
            continue
        lam[k] = 0.0
        for slot in range(1 if g_peg[k] else 2):  # a peg has no velocity
            d = g_i[k] if slot == 0 else g_o[k]
            v0x[d] = gvx[d]
            v0y[d] = gvy[d]
        vo_x = 0.0 if g_peg[k] else gvx[g_o[k]]
        vo_y = 0.0 if g_peg[k] else gvy[g_o[k]]
        app = (gvx[g_i[k]] - vo_x) * g_nx[k] + (gvy[g_i[k]] - vo_y) * g_ny[k]
        scale = max(scale, abs(app))
    if scale == 0.0:
        return
    for _ in range(MAX_SWEEPS):
        largest = 0.0
        for k in range(m):
            if g_root[k] != root:
                continue
            i = g_i[k]
            o = g_o[k]
            if g_peg[k]:
                app = gvx[i] * g_nx[k] + gvy[i] * g_ny[k]
                step = app
            else:
                app = (gvx[i] - gvx[o]) * g_nx[k] + (gvy[i] - gvy[o]) * g_ny[k]
                step = 0.5 * app
            new = lam[k] + step
            if new < 0.0:
                new = 0.0
            d = new - lam[k]
            if d != 0.0:
                lam[k] = new
                gvx[i] -= d * g_nx[k]
                gvy[i] -= d * g_ny[k]
                if not g_peg[k]:
                    gvx[o] += d * g_nx[k]
                    gvy[o] += d * g_ny[k]
                largest = max(largest, abs(d))
        if largest <= SOLVE_TOLERANCE * scale:
            break
    # Compression done: keep v_c, then add each contact's restitution impulse.
    e_min = 1.0
    mixed = False
    first_e = -1.0
    for k in range(m):
        if g_root[k] != root:
            continue
        for slot in range(1 if g_peg[k] else 2):  # a peg has no velocity
            d = g_i[k] if slot == 0 else g_o[k]
            cvx[d] = gvx[d]
            cvy[d] = gvy[d]
        if first_e < 0.0:
            first_e = g_e[k]
        elif g_e[k] != first_e:
            mixed = True
        e_min = min(e_min, g_e[k])
    for k in range(m):
        if g_root[k] != root or lam[k] == 0.0:
            continue
        extra = g_e[k] * lam[k]
        i = g_i[k]
        gvx[i] -= extra * g_nx[k]
        gvy[i] -= extra * g_ny[k]
        if not g_peg[k]:
            gvx[g_o[k]] += extra * g_nx[k]
            gvy[g_o[k]] += extra * g_ny[k]
    if mixed:
        before = 0.0
        after = 0.0
        for k in range(m):
            if g_root[k] != root:
                continue
            for slot in range(1 if g_peg[k] else 2):  # a peg has no velocity
                d = g_i[k] if slot == 0 else g_o[k]
                if counted[d]:
                    continue
                counted[d] = True
                before += v0x[d] * v0x[d] + v0y[d] * v0y[d]
                after += gvx[d] * gvx[d] + gvy[d] * gvy[d]
        for k in range(m):
            counted[g_i[k]] = False
            if not g_peg[k]:
                counted[g_o[k]] = False
        if after > before:
            for k in range(m):
                if g_root[k] != root:
                    continue
                for slot in range(1 if g_peg[k] else 2):  # a peg has no velocity
                    d = g_i[k] if slot == 0 else g_o[k]
                    gvx[d] = cvx[d] + e_min * (cvx[d] - v0x[d])
                    gvy[d] = cvy[d] + e_min * (cvy[d] - v0y[d])


@njit(cache=True)
def _log(
    n: int,
    record: bool,
    evf: np.ndarray,
    evi: np.ndarray,
    t: float,
    disc: int,
    kind: int,
    other: int,
    beyond: bool,
    x: float,
    y: float,
    vx: float,
    vy: float,
) -> int:
    if record and n < evf.shape[0]:
        evf[n, E_T] = t
        evf[n, E_X] = x
        evf[n, E_Y] = y
        evf[n, E_VX] = vx
        evf[n, E_VY] = vy
        evi[n, E_DISC] = disc
        evi[n, E_KIND] = kind
        evi[n, E_OTHER] = other
        evi[n, E_BEYOND] = 1 if beyond else 0
    return n + 1


@njit(cache=True)
def _resolve_contacts(
    m: int,
    g_i: np.ndarray,
    g_o: np.ndarray,
    g_peg: np.ndarray,
    tag: int,
    now: float,
    params: np.ndarray,
    pegs: np.ndarray,
    bounces: np.ndarray,
    beyond: np.ndarray,
    sx: np.ndarray,
    sy: np.ndarray,
    ux: np.ndarray,
    uy: np.ndarray,
    w: np.ndarray,
    t0: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    gwork: np.ndarray,
    gint: np.ndarray,
    out_flags: np.ndarray,
    out_adj: np.ndarray,
    n_ev: int,
    record: bool,
    evf: np.ndarray,
    evi: np.ndarray,
) -> int:
    """Apply the m contacts of one instant (``g_i`` touching disc or peg ``g_o``).

    Contacts that share a disc form a group resolved jointly
    (:func:`_solve_joint`); a contact alone is resolved by the two-body
    formulas.  Either way the result does not depend on the discs' indices, not
    even by rounding: the contacts are visited in an order of their own.
    Returns the new event count.
    """
    n = sx.shape[0]
    a = params[P_DECEL]
    e_disc = params[P_E_DISC]
    e_peg = params[P_E_PEG]
    v_rest = params[P_V_REST]
    stick_after = params[P_STICK_AFTER]
    gx = work[0]
    gy = work[1]
    gvx = work[2]
    gvy = work[3]
    v0x = work[4]
    v0y = work[5]
    cvx = work[6]
    cvy = work[7]
    stamp = iwork[0]
    parent = iwork[1]
    started = iwork[2]
    counted = iwork[3]
    g_nx = gwork[0]
    g_ny = gwork[1]
    g_e = gwork[2]
    lam = gwork[3]
    g_root = gint[0]
    g_size = gint[1]
    g_log = gint[2]
    # Groups: discs joined by disc–disc contacts (a peg is fixed and joins nothing).
    for k in range(m):
        _state_now(g_i[k], tag, now, a, sx, sy, ux, uy, w, t0, stamp, gx, gy, gvx, gvy)
        parent[g_i[k]] = g_i[k]
        if not g_peg[k]:
            _state_now(g_o[k], tag, now, a, sx, sy, ux, uy, w, t0, stamp, gx, gy, gvx, gvy)
            parent[g_o[k]] = g_o[k]
    # Visit the contacts in an order that does not depend on the discs'
    # indices, so relabelling the discs changes nothing, not even rounding:
    # the joint solve adds impulses in visiting order.  The key is the sum of
    # the two centres (twice the midpoint; disc and peg alike; symmetric in
    # the pair, so exact whichever disc was found first), ordered by x, then
    # y.  Distinct contacts of legal discs cannot share it.  g_nx and g_ny
    # hold the keys until the normals replace them.
    kx = g_nx
    ky = g_ny
    for k in range(m):
        i = g_i[k]
        o = g_o[k]
        kx[k] = gx[i] + (pegs[o, 0] if g_peg[k] else gx[o])
        ky[k] = gy[i] + (pegs[o, 1] if g_peg[k] else gy[o])
    for k in range(1, m):
        q = k
        while q > 0 and (kx[q - 1] > kx[q] or (kx[q - 1] == kx[q] and ky[q - 1] > ky[q])):
            kx[q - 1], kx[q] = kx[q], kx[q - 1]
            ky[q - 1], ky[q] = ky[q], ky[q - 1]
            g_i[q - 1], g_i[q] = g_i[q], g_i[q - 1]
            g_o[q - 1], g_o[q] = g_o[q], g_o[q - 1]
            g_peg[q - 1], g_peg[q] = g_peg[q], g_peg[q - 1]
            q -= 1
    for k in range(m):
        if not g_peg[k]:
            ri = _root(parent, g_i[k])
            ro = _root(parent, g_o[k])
            if ri != ro:
                parent[max(ri, ro)] = min(ri, ro)
    for k in range(m):
        g_root[k] = _root(parent, g_i[k])
    for k in range(m):
        size = 0
        for q in range(m):
            if g_root[q] == g_root[k]:
                size += 1
        g_size[k] = size
    for k in range(m):
        i = g_i[k]
        o = g_o[k]
        if g_size[k] == 1:
            # A contact alone: the two-body formulas.
            g_log[k] = 1
            if g_peg[k]:
                nx = gx[i] - pegs[o, 0]
                ny = gy[i] - pegs[o, 1]
                norm = math.hypot(nx, ny)
                nx /= norm
                ny /= norm
                vn = gvx[i] * nx + gvy[i] * ny
                if vn < 0.0:
                    bounces[i, n + o] += 1
                    e = e_peg if bounces[i, n + o] <= stick_after else 0.0
                    gvx[i] -= (1.0 + e) * vn * nx
                    gvy[i] -= (1.0 + e) * vn * ny
            else:
                nx = gx[o] - gx[i]
                ny = gy[o] - gy[i]
                norm = math.hypot(nx, ny)
                nx /= norm
                ny /= norm
                vn = (gvx[i] - gvx[o]) * nx + (gvy[i] - gvy[o]) * ny
                if vn > 0.0:
                    lo_io = min(i, o)
                    hi_io = max(i, o)
                    bounces[lo_io, hi_io] += 1
                    if bounces[lo_io, hi_io] <= stick_after:
                        impulse = 0.5 * (1.0 + e_disc) * vn
                        gvx[i] -= impulse * nx
                        gvy[i] -= impulse * ny
                        gvx[o] += impulse * nx
                        gvy[o] += impulse * ny
                    else:
                        # Inelastic collapse: the pair slides on together.
                        cmx = 0.5 * (gvx[i] + gvx[o])
                        cmy = 0.5 * (gvy[i] + gvy[o])
                        gvx[i] = cmx
                        gvy[i] = cmy
                        gvx[o] = cmx
                        gvy[o] = cmy
            continue
        # In a group: normal from the disc to its partner, and the restitution
        # this contact gets (none after stick_after bounces, as alone).
        if g_peg[k]:
            nx = pegs[o, 0] - gx[i]
            ny = pegs[o, 1] - gy[i]
            count = bounces[i, n + o]
            e = e_peg
        else:
            nx = gx[o] - gx[i]
            ny = gy[o] - gy[i]
            count = bounces[min(i, o), max(i, o)]
            e = e_disc
        norm = math.hypot(nx, ny)
        g_nx[k] = nx / norm
        g_ny[k] = ny / norm
        g_e[k] = e if count + 1 <= stick_after else 0.0
    for k in range(m):
        if g_size[k] == 1:
            continue
        first = True
        for q in range(k):
            if g_root[q] == g_root[k]:
                first = False
                break
        if first:
            _solve_joint(
                g_root[k], m, g_i, g_o, g_peg, g_root, g_nx, g_ny, g_e, lam,
                gvx, gvy, v0x, v0y, cvx, cvy, counted,
            )  # fmt: skip
    for k in range(m):
        if g_size[k] == 1:
            continue
        # A contact of a group that needed no impulse is no touch: it is not
        # logged and its discs keep their motion untouched.
        g_log[k] = 1 if lam[k] > 0.0 else 0
        if g_log[k]:
            if g_peg[k]:
                bounces[g_i[k], n + g_o[k]] += 1
            else:
                bounces[min(g_i[k], g_o[k]), max(g_i[k], g_o[k])] += 1
    # Every disc of a logged contact starts its new motion, once.
    for k in range(m):
        if not g_log[k]:
            continue
        for slot in range(1 if g_peg[k] else 2):  # a peg has no velocity
            d = g_i[k] if slot == 0 else g_o[k]
            if started[d] == tag:
                continue
            started[d] = tag
            gvx[d], gvy[d] = _start_motion(
                d, gx[d], gy[d], gvx[d], gvy[d], now, v_rest, sx, sy, ux, uy, w, t0
            )
    for k in range(m):
        if not g_log[k]:
            continue
        i = g_i[k]
        o = g_o[k]
        if g_peg[k]:
            out_flags[i, 3] = True
            if beyond[i]:
                out_flags[i, 2] = True
            n_ev = _log(
                n_ev, record, evf, evi, now, i, PEG, o, beyond[i], gx[i], gy[i], gvx[i], gvy[i]
            )
        else:
            out_adj[i, o] = True
            out_adj[o, i] = True
            if beyond[i]:
                out_flags[i, 2] = True
            if beyond[o]:
                out_flags[o, 2] = True
            if w[o] > 0.0:
                out_flags[o, 0] = True
            n_ev = _log(
                n_ev, record, evf, evi, now, i, DISC, o, beyond[i], gx[i], gy[i], gvx[i], gvy[i]
            )
            n_ev = _log(
                n_ev, record, evf, evi, now, o, DISC, i, beyond[o], gx[o], gy[o], gvx[o], gvy[o]
            )
    return n_ev


@njit(cache=True)
def _workspace(n: int, n_pegs: int) -> Workspace:
    """Scratch arrays for simulating n discs among n_pegs pegs.

    A batch makes them once and reuses them for every shot.  Separate
    allocations rather than views of one buffer per type: slicing and
    reshaping cost a second of a cold compile, ten allocations a microsecond
    of a shot.
    """
    # Each disc–peg and disc–disc pair is found at most once per search, so
    # ``cap`` bounds the contacts that one instant can hold.
    cap = n * (n + n_pegs) + 1
    return (
        np.empty((11, n)),  # sx sy ux uy w t0 enter_t qx qy rem solo_t
        np.empty((3, n), dtype=np.bool_),  # beyond over pending
        # Bounces per disc pair (columns < n) and per disc–peg pair (columns >= n).
        np.empty((n, n + n_pegs), dtype=np.int32),
        np.empty(cap),  # time of each contact found in a search
        np.empty((4, cap), dtype=np.int64),  # c_i c_o g_i g_o
        np.empty((2, cap), dtype=np.bool_),  # c_peg g_peg
        np.empty((8, n)),  # per disc, for _resolve_contacts
        np.empty((5, n), dtype=np.int64),  # rows 0-3 for _resolve_contacts; solo_k
        np.empty((4, cap)),  # per contact, for _resolve_contacts
        np.empty((3, cap), dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def run_shot(
    pos: np.ndarray,
    vel: np.ndarray,
    pegs: np.ndarray,
    params: np.ndarray,
    max_events: int,
    record: bool,
    evf: np.ndarray,
    evi: np.ndarray,
    out_pos: np.ndarray,
    out_status: np.ndarray,
    out_flags: np.ndarray,
    out_adj: np.ndarray,
) -> tuple[int, float]:
    """Simulate discs at ``pos`` with initial velocities ``vel`` until all rest.

    Writes the final centre and status of each disc, per-disc flags
    (moved, crossed the shooting line, touched something while beyond it,
    touched a peg) and the disc–disc contact matrix.  When ``record`` is set,
    every event goes to ``evf`` / ``evi`` (float and int columns).

    Returns:
        (number of events, time of the last event); the count is -1 when the
        event cap was reached.
    """
    return _run(
        pos, vel, pegs, params, max_events, record, evf, evi,
        out_pos, out_status, out_flags, out_adj, _workspace(pos.shape[0], pegs.shape[0]),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _run(
    pos: np.ndarray,
    vel: np.ndarray,
    pegs: np.ndarray,
    params: np.ndarray,
    max_events: int,
    record: bool,
    evf: np.ndarray,
    evi: np.ndarray,
    out_pos: np.ndarray,
    out_status: np.ndarray,
    out_flags: np.ndarray,
    out_adj: np.ndarray,
    ws: Workspace,
) -> tuple[int, float]:
    """:func:`run_shot` in the scratch arrays ``ws`` (from :func:`_workspace`)."""
    n = pos.shape[0]
    n_pegs = pegs.shape[0]
    r = params[P_DISC_R]
    a = params[P_DECEL]
    surface2 = params[P_SURFACE_R] ** 2
    line2 = params[P_LINE_R] ** 2
    hole2 = params[P_HOLE_R] ** 2
    drop_t = params[P_DROP_T]
    v_rest = params[P_V_REST]
    e_disc = params[P_E_DISC]
    e_peg = params[P_E_PEG]
    stick_after = params[P_STICK_AFTER]
    dd2 = (2.0 * r) ** 2
    pd2 = (r + params[P_PEG_R]) ** 2

    fw, bw, bounces, c_tau, cw, pw, work, iwork, gwork, gint = ws
    sx = fw[0]
    sy = fw[1]
    ux = fw[2]
    uy = fw[3]
    w = fw[4]
    t0 = fw[5]
    enter_t = fw[6]
    qx = fw[7]
    qy = fw[8]
    rem = fw[9]
    # Each disc's first event of its own (no contact) in the current search.
    solo_t = fw[10]
    solo_k = iwork[4]
    beyond = bw[0]
    over = bw[1]
    pending = bw[2]
    c_i = cw[0]
    c_o = cw[1]
    g_i = cw[2]
    g_o = cw[3]
    c_peg = pw[0]
    g_peg = pw[1]
    # A workspace may come from the previous shot of a batch: reset what is
    # read before it is written.
    for i in range(n):
        ux[i] = 0.0
        uy[i] = 0.0
        w[i] = 0.0
        t0[i] = 0.0
        enter_t[i] = 0.0
        iwork[0, i] = -1
        iwork[1, i] = -1
        iwork[2, i] = -1
        iwork[3, i] = 0
        for j in range(bounces.shape[1]):
            bounces[i, j] = 0

    n_ev = 0
    for i in range(n):
        sx[i] = pos[i, 0]
        sy[i] = pos[i, 1]
        out_status[i] = ON_BOARD
        for f in range(4):
            out_flags[i, f] = False
        for j in range(n):
            out_adj[i, j] = False
        speed = math.hypot(vel[i, 0], vel[i, 1])
        d2 = sx[i] * sx[i] + sy[i] * sy[i]
        d = math.sqrt(d2)
        # A disc launched with its rim on the line (the shot disc, placed on
        # it) has not reached it until it has once been fully inside (R5):
        # pending until then.  A resting disc with its rim on the line (to
        # rounding) is over it.
        pending[i] = speed > v_rest and d > params[P_LINE_R] - LINE_TOLERANCE
        beyond[i] = not pending[i] and d > params[P_LINE_R] + LINE_TOLERANCE
        over[i] = d2 < hole2
        if speed > v_rest:
            w[i] = speed
            ux[i] = vel[i, 0] / speed
            uy[i] = vel[i, 1] / speed
            out_flags[i, 0] = True
            n_ev = _log(
                n_ev,
                record,
                evf,
                evi,
                0.0,
                i,
                LAUNCH,
                -1,
                beyond[i],
                sx[i],
                sy[i],
                vel[i, 0],
                vel[i, 1],
            )
        if beyond[i]:
            out_flags[i, 1] = True

    now = 0.0
    last_t = 0.0
    steps = 0
    while True:
        steps += 1
        if steps > max_events:
            return -1, now
        # Where every moving disc is now.
        for i in range(n):
            qx[i], qy[i], rem[i] = _advance(sx[i], sy[i], ux[i], uy[i], w[i], t0[i], now, a)
            solo_t[i] = INF
            if pending[i] and qx[i] * qx[i] + qy[i] * qy[i] < line2:
                pending[i] = False  # fully inside: from now on the line counts

        best = INF
        kind = -1
        bi = -1
        bj = -1
        nc = 0
        # Pending drops (moving or resting discs with the centre over the hole).
        for i in range(n):
            if out_status[i] == ON_BOARD and over[i]:
                tau = enter_t[i] + drop_t - now
                if tau < 0.0:
                    tau = 0.0
                if tau < solo_t[i]:
                    solo_t[i] = tau
                    solo_k[i] = DROP
                if tau < best:
                    best = tau
                    kind = DROP
                    bi = i
        for i in range(n):
            if out_status[i] != ON_BOARD or w[i] <= 0.0:
                continue
            wi = rem[i]
            s_stop = wi * wi / (2.0 * a)
            tau = wi / a
            if tau < solo_t[i]:
                solo_t[i] = tau
                solo_k[i] = STOP
            if tau < best:
                best = tau
                kind = STOP
                bi = i
            px = qx[i]
            py = qy[i]
            dx = ux[i]
            dy = uy[i]
            for k in range(n_pegs):
                s = _entry_distance(px, py, dx, dy, pegs[k, 0], pegs[k, 1], pd2)
                if s <= s_stop:
                    tau = _time_for(s, wi, a)
                    if tau <= best + GROUP_WINDOW:
                        c_tau[nc] = tau
                        c_i[nc] = i
                        c_o[nc] = k
                        c_peg[nc] = True
                        nc += 1
                    if tau < best:
                        best = tau
                        kind = PEG
                        bi = i
                        bj = k
            for j in range(n):
                if j == i or out_status[j] != ON_BOARD:
                    continue
                if w[j] > 0.0:
                    if j < i:
                        continue
                    wj = rem[j]
                    gx = px - qx[j]
                    gy = py - qy[j]
                    reach = s_stop + wj * wj / (2.0 * a)
                    gap = math.sqrt(gx * gx + gy * gy) - 2.0 * r
                    if gap > reach:
                        continue
                    tmax = min(wi, wj) / a
                    tau = _moving_pair_contact(
                        gx,
                        gy,
                        dx * wi - ux[j] * wj,
                        dy * wi - uy[j] * wj,
                        -0.5 * a * (dx - ux[j]),
                        -0.5 * a * (dy - uy[j]),
                        dd2,
                        tmax,
                    )
                else:
                    s = _entry_distance(px, py, dx, dy, qx[j], qy[j], dd2)
                    if s > s_stop:
                        continue
                    tau = _time_for(s, wi, a)
                if tau < INF and tau <= best + GROUP_WINDOW:
                    c_tau[nc] = tau
                    c_i[nc] = i
                    c_o[nc] = j
                    c_peg[nc] = False
                    nc += 1
                if tau < best:
                    best = tau
                    kind = DISC
                    bi = i
                    bj = j
            # The circles of the board (the shooting line: where the rim
            # touches its near edge).
            if pending[i]:
                # Outside and not yet counted: the line counts from the
                # moment it is fully inside, so the crossing to find is the
                # way out again, at the far end of the chord.
                s_in = _entry_distance(px, py, dx, dy, 0.0, 0.0, line2)
                if s_in <= s_stop:
                    s = s_in + _exit_distance(px + dx * s_in, py + dy * s_in, dx, dy, line2)
                    if s <= s_stop:
                        tau = _time_for(s, wi, a)
                        if tau < solo_t[i]:
                            solo_t[i] = tau
                            solo_k[i] = LINE_OUT
                        if tau < best:
                            best = tau
                            kind = LINE_OUT
                            bi = i
            elif beyond[i]:
                b = dx * px + dy * py
                if b < 0.0:
                    s = _entry_distance(px, py, dx, dy, 0.0, 0.0, line2)
                    if s <= s_stop:
                        tau = _time_for(s, wi, a)
                        if tau < solo_t[i]:
                            solo_t[i] = tau
                            solo_k[i] = LINE_IN
                        if tau < best:
                            best = tau
                            kind = LINE_IN
                            bi = i
            else:
                s = _exit_distance(px, py, dx, dy, line2)
                if s <= s_stop:
                    tau = _time_for(s, wi, a)
                    if tau < solo_t[i]:
                        solo_t[i] = tau
                        solo_k[i] = LINE_OUT
                    if tau < best:
                        best = tau
                        kind = LINE_OUT
                        bi = i
            s = _exit_distance(px, py, dx, dy, surface2)
            if s <= s_stop:
                tau = _time_for(s, wi, a)
                if tau < solo_t[i]:
                    solo_t[i] = tau
                    solo_k[i] = DITCH
                if tau < best:
                    best = tau
                    kind = DITCH
                    bi = i
            if over[i]:
                s = _exit_distance(px, py, dx, dy, hole2)
                if s <= s_stop:
                    tau = _time_for(s, wi, a)
                    if tau < solo_t[i]:
                        solo_t[i] = tau
                        solo_k[i] = HOLE_EXIT
                    if tau < best:
                        best = tau
                        kind = HOLE_EXIT
                        bi = i
            else:
                s = _entry_distance(px, py, dx, dy, 0.0, 0.0, hole2)
                if s <= s_stop:
                    tau = _time_for(s, wi, a)
                    if tau < solo_t[i]:
                        solo_t[i] = tau
                        solo_k[i] = HOLE_ENTER
                    if tau < best:
                        best = tau
                        kind = HOLE_ENTER
                        bi = i

        if kind < 0:
            break
        now = now + best
        last_t = now
        if kind == PEG or kind == DISC:
            i = bi
            xi, yi, left = _advance(sx[i], sy[i], ux[i], uy[i], w[i], t0[i], now, a)
            vxi = ux[i] * left
            vyi = uy[i] * left
            # Every contact of this instant: the one found first, and each
            # other found within GROUP_WINDOW whose discs are now within
            # SIMULTANEOUS_GAP of touching.  They are resolved together.
            m = 0
            for c in range(nc):
                if c_tau[c] > best + GROUP_WINDOW:
                    continue
                ci = c_i[c]
                co = c_o[c]
                found_first = ci == bi and co == bj and c_peg[c] == (kind == PEG)
                if not found_first:
                    xc, yc, _ = _advance(sx[ci], sy[ci], ux[ci], uy[ci], w[ci], t0[ci], now, a)
                    if c_peg[c]:
                        gap = math.hypot(xc - pegs[co, 0], yc - pegs[co, 1]) - (r + params[P_PEG_R])
                    else:
                        xo, yo, _ = _advance(sx[co], sy[co], ux[co], uy[co], w[co], t0[co], now, a)
                        gap = math.hypot(xc - xo, yc - yo) - 2.0 * r
                    if gap > SIMULTANEOUS_GAP:
                        continue
                g_i[m] = ci
                g_o[m] = co
                g_peg[m] = c_peg[c]
                m += 1
            if m == 1:
                # A contact alone (nearly always): the two-body formulas, inline
                # here because calling _resolve_contacts costs as much as them.
                if kind == PEG:
                    nx = xi - pegs[bj, 0]
                    ny = yi - pegs[bj, 1]
                    norm = math.hypot(nx, ny)
                    nx /= norm
                    ny /= norm
                    vn = vxi * nx + vyi * ny
                    if vn < 0.0:
                        bounces[i, n + bj] += 1
                        e = e_peg if bounces[i, n + bj] <= stick_after else 0.0
                        vxi -= (1.0 + e) * vn * nx
                        vyi -= (1.0 + e) * vn * ny
                    out_flags[i, 3] = True
                    if beyond[i]:
                        out_flags[i, 2] = True
                    vxi, vyi = _start_motion(
                        i, xi, yi, vxi, vyi, now, v_rest, sx, sy, ux, uy, w, t0
                    )
                    n_ev = _log(
                        n_ev, record, evf, evi, now, i, PEG, bj, beyond[i], xi, yi, vxi, vyi
                    )
                else:
                    j = bj
                    xj, yj, leftj = _advance(sx[j], sy[j], ux[j], uy[j], w[j], t0[j], now, a)
                    vxj = ux[j] * leftj
                    vyj = uy[j] * leftj
                    nx = xj - xi
                    ny = yj - yi
                    norm = math.hypot(nx, ny)
                    nx /= norm
                    ny /= norm
                    vn = (vxi - vxj) * nx + (vyi - vyj) * ny
                    if vn > 0.0:
                        lo_ij = min(i, j)
                        hi_ij = max(i, j)
                        bounces[lo_ij, hi_ij] += 1
                        if bounces[lo_ij, hi_ij] <= stick_after:
                            impulse = 0.5 * (1.0 + e_disc) * vn
                            vxi -= impulse * nx
                            vyi -= impulse * ny
                            vxj += impulse * nx
                            vyj += impulse * ny
                        else:
                            # Inelastic collapse: the pair slides on together.
                            cmx = 0.5 * (vxi + vxj)
                            cmy = 0.5 * (vyi + vyj)
                            vxi = cmx
                            vyi = cmy
                            vxj = cmx
                            vyj = cmy
                    out_adj[i, j] = True
                    out_adj[j, i] = True
                    if beyond[i] or beyond[j]:
                        if beyond[i]:
                            out_flags[i, 2] = True
                        if beyond[j]:
                            out_flags[j, 2] = True
                    vxi, vyi = _start_motion(
                        i, xi, yi, vxi, vyi, now, v_rest, sx, sy, ux, uy, w, t0
                    )
                    vxj, vyj = _start_motion(
                        j, xj, yj, vxj, vyj, now, v_rest, sx, sy, ux, uy, w, t0
                    )
                    if w[j] > 0.0:
                        out_flags[j, 0] = True
                    n_ev = _log(
                        n_ev, record, evf, evi, now, i, DISC, j, beyond[i], xi, yi, vxi, vyi
                    )
                    n_ev = _log(
                        n_ev, record, evf, evi, now, j, DISC, i, beyond[j], xj, yj, vxj, vyj
                    )
            else:
                n_ev = _resolve_contacts(
                    m, g_i, g_o, g_peg, steps, now, params, pegs, bounces, beyond,
                    sx, sy, ux, uy, w, t0, work, iwork, gwork, gint,
                    out_flags, out_adj, n_ev, record, evf, evi,
                )  # fmt: skip
        else:
            # An event of a disc's own (no contact), and with it every other
            # disc's own event of this very instant, so that none depends on
            # the discs' order.  One at a time, in index order, each later
            # one would be searched for again from the one before and land a
            # rounding later; and the two discs of a stuck pair, sliding on
            # with one velocity, stop at once: stopped one at a time, the one
            # behind touched the one in front only when that one had the
            # lower index.  Own events of distinct discs are independent.
            for i in range(n):
                if i == bi:
                    ki = kind
                elif solo_t[i] == best:
                    ki = solo_k[i]
                else:
                    continue
                # Where disc i is (a stop lands exactly w²/2a on).
                if ki == STOP:
                    s = w[i] * w[i] / (2.0 * a)
                    xi = sx[i] + ux[i] * s
                    yi = sy[i] + uy[i] * s
                    left = 0.0
                else:
                    xi, yi, left = _advance(sx[i], sy[i], ux[i], uy[i], w[i], t0[i], now, a)
                vxi = ux[i] * left
                vyi = uy[i] * left
                if ki == STOP:
                    sx[i] = xi
                    sy[i] = yi
                    w[i] = 0.0
                    t0[i] = now
                    n_ev = _log(
                        n_ev, record, evf, evi, now, i, STOP, -1, beyond[i], xi, yi, 0.0, 0.0
                    )
                elif ki == LINE_OUT or ki == LINE_IN:
                    beyond[i] = ki == LINE_OUT
                    pending[i] = False
                    if beyond[i]:
                        out_flags[i, 1] = True
                    n_ev = _log(n_ev, record, evf, evi, now, i, ki, -1, beyond[i], xi, yi, vxi, vyi)
                elif ki == HOLE_ENTER or ki == HOLE_EXIT:
                    over[i] = ki == HOLE_ENTER
                    enter_t[i] = now
                    n_ev = _log(n_ev, record, evf, evi, now, i, ki, -1, beyond[i], xi, yi, vxi, vyi)
                else:  # DROP or DITCH: the disc leaves the surface where it is.
                    out_status[i] = IN_HOLE if ki == DROP else IN_DITCH
                    sx[i] = xi
                    sy[i] = yi
                    w[i] = 0.0
                    t0[i] = now
                    over[i] = False
                    n_ev = _log(n_ev, record, evf, evi, now, i, ki, -1, beyond[i], xi, yi, 0.0, 0.0)

    for i in range(n):
        out_pos[i, 0] = sx[i]
        out_pos[i, 1] = sy[i]
    return n_ev, last_t


@njit(cache=True, nogil=True)
def run_batch(
    pos: np.ndarray,
    launches: np.ndarray,
    pegs: np.ndarray,
    params: np.ndarray,
    max_events: int,
    out_pos: np.ndarray,
    out_status: np.ndarray,
    out_flags: np.ndarray,
    out_adj: np.ndarray,
    out_events: np.ndarray,
) -> None:
    """Simulate K shots from the same position: shot k adds a disc at launches[k].

    The shot disc is the last disc (index N).  Outputs have a leading K axis;
    ``out_events[k]`` is -1 where shot k reached the event cap.
    """
    n = pos.shape[0]
    k_shots = launches.shape[0]
    all_pos = np.empty((n + 1, 2))
    all_vel = np.zeros((n + 1, 2))
    for i in range(n):
        all_pos[i, 0] = pos[i, 0]
        all_pos[i, 1] = pos[i, 1]
    evf = np.empty((0, 5))
    evi = np.empty((0, 4), dtype=np.int64)
    # Not the constant False: a literal would compile a second _run.
    record = evf.shape[0] > 0
    ws = _workspace(n + 1, pegs.shape[0])
    for k in range(k_shots):
        all_pos[n, 0] = launches[k, 0]
        all_pos[n, 1] = launches[k, 1]
        all_vel[n, 0] = launches[k, 2]
        all_vel[n, 1] = launches[k, 3]
        count, _ = _run(
            all_pos,
            all_vel,
            pegs,
            params,
            max_events,
            record,
            evf,
            evi,
            out_pos[k],
            out_status[k],
            out_flags[k],
            out_adj[k],
            ws,
        )
        out_events[k] = count


@njit(cache=True, nogil=True)
def run_boards(
    pos: np.ndarray,
    launches: np.ndarray,
    pegs: np.ndarray,
    params: np.ndarray,
    max_events: int,
    out_pos: np.ndarray,
    out_status: np.ndarray,
    out_flags: np.ndarray,
    out_adj: np.ndarray,
    out_events: np.ndarray,
) -> None:
    """Simulate one shot on each of B boards: board b holds the N discs ``pos[b]``.

    :func:`run_batch` with a position per shot (``pos`` is ``(B, N, 2)``):
    shot b adds a disc at ``launches[b]`` to board b, as the last disc (index
    N).  Outputs have a leading B axis; ``out_events[b]`` is -1 where shot b
    reached the event cap.
    """
    n = pos.shape[1]
    all_pos = np.empty((n + 1, 2))
    all_vel = np.zeros((n + 1, 2))
    evf = np.empty((0, 5))
    evi = np.empty((0, 4), dtype=np.int64)
    record = evf.shape[0] > 0  # not the constant False: one _run for every kernel
    ws = _workspace(n + 1, pegs.shape[0])
    for b in range(launches.shape[0]):
        for i in range(n):
            all_pos[i, 0] = pos[b, i, 0]
            all_pos[i, 1] = pos[b, i, 1]
            all_vel[i, 0] = 0.0
            all_vel[i, 1] = 0.0
        all_pos[n, 0] = launches[b, 0]
        all_pos[n, 1] = launches[b, 1]
        all_vel[n, 0] = launches[b, 2]
        all_vel[n, 1] = launches[b, 3]
        count, _ = _run(
            all_pos, all_vel, pegs, params, max_events, record, evf, evi,
            out_pos[b], out_status[b], out_flags[b], out_adj[b], ws,
        )  # fmt: skip
        out_events[b] = count


@njit(cache=True)
def first_invalid_boards(
    pos: np.ndarray, launches: np.ndarray, pegs: np.ndarray, params: np.ndarray, tol: float
) -> tuple[int, int, int, int]:
    """First problem of :func:`run_boards`' input, as (code, board, disc, other).

    Codes of :func:`first_invalid` for a resting disc (disc < N) and of
    :func:`first_invalid_launch` for the shot disc (disc = N).
    """
    n = pos.shape[1]
    one = np.empty((1, 2))
    dd = 2.0 * params[P_DISC_R] - tol
    for b in range(pos.shape[0]):
        code, i, other = first_invalid(pos[b], pegs, params, tol)
        if code:
            return code, b, i, other
        # The shot disc, as first_invalid_launch checks it.
        if not (math.isfinite(launches[b, 2]) and math.isfinite(launches[b, 3])):
            return 6, b, n, -1
        one[0, 0] = launches[b, 0]
        one[0, 1] = launches[b, 1]
        code, _, other = first_invalid(one, pegs, params, tol)
        if code:
            return code, b, n, other
        for j in range(n):
            if math.hypot(launches[b, 0] - pos[b, j, 0], launches[b, 1] - pos[b, j, 1]) < dd:
                return 5, b, n, j
    return 0, -1, -1, -1


@njit(cache=True)
def first_invalid(
    pos: np.ndarray, pegs: np.ndarray, params: np.ndarray, tol: float
) -> tuple[int, int, int]:
    """First problem with a set of resting discs, as (code, disc, other).

    Codes: 0 fine; 1 not finite; 2 off the surface; 3 over the hole;
    4 overlaps a peg (other = peg); 5 overlaps a disc (other = disc).
    """
    n = pos.shape[0]
    r = params[P_DISC_R]
    dd = 2.0 * r - tol
    pd = r + params[P_PEG_R] - tol
    surface = params[P_SURFACE_R]
    hole = params[P_HOLE_R]
    for i in range(n):
        x = pos[i, 0]
        y = pos[i, 1]
        if not (math.isfinite(x) and math.isfinite(y)):
            return 1, i, -1
        d = math.hypot(x, y)
        if d > surface:
            return 2, i, -1
        if d < hole:
            return 3, i, -1
        for k in range(pegs.shape[0]):
            if math.hypot(x - pegs[k, 0], y - pegs[k, 1]) < pd:
                return 4, i, k
        for j in range(i):
            if math.hypot(x - pos[j, 0], y - pos[j, 1]) < dd:
                return 5, i, j
    return 0, -1, -1


@njit(cache=True)
def first_invalid_launch(
    pos: np.ndarray, launches: np.ndarray, pegs: np.ndarray, params: np.ndarray, tol: float
) -> tuple[int, int, int]:
    """First launch whose disc cannot start where it is, as (code, launch, other).

    Codes as in :func:`first_invalid`, plus 6: a speed that is not finite.
    """
    one = np.empty((1, 2))
    r = params[P_DISC_R]
    dd = 2.0 * r - tol
    for k in range(launches.shape[0]):
        if not (math.isfinite(launches[k, 2]) and math.isfinite(launches[k, 3])):
            return 6, k, -1
        one[0, 0] = launches[k, 0]
        one[0, 1] = launches[k, 1]
        code, _, other = first_invalid(one, pegs, params, tol)
        if code:
            return code, k, other
        for j in range(pos.shape[0]):
            if math.hypot(launches[k, 0] - pos[j, 0], launches[k, 1] - pos[j, 1]) < dd:
                return 5, k, j
    return 0, -1, -1


#: Held while :func:`prepare` fixes the signatures (threads may simulate at once).
_PREPARING = threading.Lock()
#: Set once the signatures are fixed.
_PREPARED = threading.Event()


def prepare() -> None:
    """Fix the helpers' signatures before the first simulation (idempotent, cheap after).

    Each helper gets its one signature (compiled, or loaded from the cache)
    and compiles no other, so a cold compile builds each function once; the
    kernels themselves compile on first use (:func:`run_shot` for a shot,
    :func:`run_batch` for the CPU players), and share one :func:`_run`.
    ``crokinole.physics.simulate`` calls this; a caller of the kernels
    straight away should too. Safe from several threads at once: the first
    fixes the signatures, the others wait for it (a second ``compile`` of a
    helper whose compiling is disabled would raise).
    """
    if _PREPARED.is_set():
        return
    with _PREPARING:
        if _PREPARED.is_set():
            return
        for helper, signature in (
            (_log, _LOG_SIG),
            (_start_motion, _START_SIG),
            (_solve_joint, _SOLVE_SIG),
            (_resolve_contacts, _RESOLVE_SIG),
        ):
            helper.compile(signature)
            helper.disable_compile()
        _PREPARED.set()
