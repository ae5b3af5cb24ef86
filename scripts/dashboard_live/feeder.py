# Adds trials to a study live, as a slow worker would: ask, wait PAUSE seconds (the trial shows as
# running meanwhile), tell a value (every 10th trial failed), until stopped.
#   feeder.py STORAGE-URL STUDY PAUSE
import random
import sys
import time

import optimist

url, name, pause = sys.argv[1], sys.argv[2], float(sys.argv[3])
study = optimist.Study.load(url, name, worker="feeder")
rng = random.Random(0)
k = 0
while (trial := study.ask()) is not None:
    time.sleep(pause)
    if k % 10 == 0:
        study.tell_failed(trial, "feeder failure")
    else:  # values as the first probe's feeder told them (the page's work does not depend on them)
        study.tell(trial, -rng.uniform(100, 600))
    k += 1
