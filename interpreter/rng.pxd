# C types for the native build of rng.py (Cython reads this beside the .py, which stays plain
# Python): SplitMix64 in 64-bit unsigned arithmetic, which wraps as the & _ALL of the Python does
import cython

cdef unsigned long long _G, _M1, _M2, _ALL

@cython.locals(z=cython.ulonglong, top=cython.ulonglong, m=cython.ulonglong)
cpdef tuple below(unsigned long long state, object n)
