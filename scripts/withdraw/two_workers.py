# One worker of scripts/withdraw/two_workers.sh: STORAGE SEED P_FAIL
import optuna, optimist, warnings, sys, random, time
from optimist.integration.optuna import OptimistSampler
from optuna.trial import TrialState
optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.simplefilter("ignore")
storage=sys.argv[1]; seed=int(sys.argv[2]); pfail=float(sys.argv[3])
rng=random.Random(seed)
def obj(trial):
    if rng.random()<pfail: raise RuntimeError("setup failed")
    a=trial.suggest_int("a",0,9); b=trial.suggest_int("b",0,9)
    time.sleep(0.05)
    return (a-2)**2+(b-3)**2
s=optuna.create_study(study_name="o3", storage=storage, load_if_exists=True, sampler=OptimistSampler(algorithm="gp-ei", seed=seed))
s.optimize(obj, n_trials=25, catch=(RuntimeError,))
