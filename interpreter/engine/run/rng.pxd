# C types for the native build of rng.py (Cython reads this beside the .py, which stays plain
# Python): SplitMix64 in 64-bit unsigned arithmetic, which wraps as the & mask of the Python does
import cython

@cython.locals(z=cython.ulonglong, top=cython.ulonglong, m=cython.ulonglong, mask=cython.ulonglong,
               golden=cython.ulonglong, mix1=cython.ulonglong, mix2=cython.ulonglong)
cpdef tuple below(unsigned long long state, object n)
