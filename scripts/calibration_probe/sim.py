"""Toy chemical-kinetics simulator: A -> B -> C with Arrhenius rates, reaction order n for step 1,
catalyst deactivation, measured at 3 temperatures. Parameters (7):
  A1 [1e3,1e12] log, Ea1 [40,120] kJ/mol, A2 [1e3,1e12] log, Ea2 [40,120] kJ/mol,
  n [0.5,2.5], kd [1e-4,1] log (1/s), variant Int 1..3 (1: irreversible, 2: +reversible step 2, 3: +side reaction)
Objective: chi^2 = sum(((obs - sim)/sigma)^2) ; NaN when solver fails / negative concentrations with n<1.
"""
import numpy as np, time, math
from scipy.integrate import solve_ivp

R = 8.314e-3  # kJ/mol/K
TEMPS = [330.0, 350.0, 370.0]
T_OBS = np.linspace(0.5, 60.0, 15)  # minutes
SIGMA = 0.01
TRUE = {"A1": 3.0e8, "Ea1": 70.0, "A2": 5.0e6, "Ea2": 60.0, "n": 1.4, "kd": 0.02, "variant": 2}
NAMES = ["A1", "Ea1", "A2", "Ea2", "n", "kd", "variant"]

def rhs_factory(p, T):
    k1 = p["A1"] * math.exp(-p["Ea1"] / (R * T))
    k2 = p["A2"] * math.exp(-p["Ea2"] / (R * T))
    kr = 0.1 * k2 if p["variant"] >= 2 else 0.0
    ks = 0.05 * k1 if p["variant"] >= 3 else 0.0
    n, kd = p["n"], p["kd"]
    count = [0]
    def rhs(t, y):
        count[0] += 1
        if count[0] > 60000:   # like CVODE's mxstep: a stiff region -> failure
            raise RuntimeError(f"solver diverged: too many steps (k1={k1:.3g}/min at T={T})")
        a, b, c, act = y
        r1 = act * k1 * a ** n          # a<0 with n fractional -> nan (divergence)
        r2 = k2 * b - kr * c
        rs = ks * a
        return [-r1 - rs, r1 - r2, r2, -kd * act]
    return rhs

def simulate(p, deadline=None):
    out = []
    for T in TEMPS:
        rhs = rhs_factory(p, T)
        sol = solve_ivp(rhs, (0, T_OBS[-1]), [1.0, 0.0, 0.0, 1.0], t_eval=T_OBS, method="RK45",
                        rtol=1e-4, atol=1e-7)
        if not sol.success:
            raise RuntimeError(f"solver failed at T={T}: {sol.message}")
        out.append(sol.y[1:3])
    return np.array(out)

_rng = np.random.default_rng(12345)
OBS = simulate(TRUE) + SIGMA * _rng.normal(size=(3, 2, len(T_OBS)))

def chi2(p):
    with np.errstate(all="ignore"):
        y = simulate(p)
    return float(np.sum(((OBS - y) / SIGMA) ** 2))

COST_S = 0.05
def objective(p):
    """dict -> chi^2 (may be nan, may raise, may be slow)"""
    time.sleep(COST_S)
    return chi2(p)

def objective_nan(p):
    """failures as NaN instead of exceptions"""
    try:
        return objective(p)
    except RuntimeError:
        return float("nan")

def space_optimist():
    import optimist
    return {"A1": optimist.Float(1e3, 1e12, log=True), "Ea1": optimist.Float(40, 120),
            "A2": optimist.Float(1e3, 1e12, log=True), "Ea2": optimist.Float(40, 120),
            "n": optimist.Float(0.5, 2.5), "kd": optimist.Float(1e-4, 1.0, log=True),
            "variant": optimist.Int(1, 3)}

BOUNDS_U = {"A1": (3, 12, "log"), "Ea1": (40, 120, "lin"), "A2": (3, 12, "log"), "Ea2": (40, 120, "lin"),
            "n": (0.5, 2.5, "lin"), "kd": (-4, 0, "log"), "variant": (1, 3, "int")}

if __name__ == "__main__":
    t = time.time(); print("chi2 at truth", chi2(TRUE), time.time() - t)
    rng = np.random.default_rng(0); res=[]
    for i in range(200):
        p = {}
        for k, (lo, hi, kind) in BOUNDS_U.items():
            u = rng.uniform(lo, hi)
            p[k] = 10 ** u if kind == "log" else (int(round(u)) if kind == "int" else u)
        t = time.time()
        try:
            v = chi2(p)
        except Exception as e:
            v = repr(e)[:80]
        res.append((time.time()-t, v))
    import collections
    ts=[r[0] for r in res]; vs=[r[1] for r in res]
    print("max t", max(ts), "mean t", sum(ts)/len(ts))
    print("fail", sum(isinstance(v,str) for v in vs), "nan", sum(isinstance(v,float) and v!=v for v in vs))
    fin=[v for v in vs if isinstance(v,float) and v==v]; print("min", min(fin), "median", sorted(fin)[len(fin)//2], "max", max(fin))
    print([v for v in vs if isinstance(v,str)][:3])
