# C types for the native build of movewrite.py (Cython reads this beside the .py, which stays plain
# Python): the vector as a float32 memoryview, component and zone ids as C integers
import cython

@cython.locals(cid=cython.Py_ssize_t, old=cython.Py_ssize_t, now=cython.Py_ssize_t)
cpdef void write_moves(float[:] m, object new, list before, list where, list count, list lab, Py_ssize_t nc)

@cython.locals(cid=cython.Py_ssize_t, old=cython.Py_ssize_t, now=cython.Py_ssize_t, w=cython.float)
cpdef void write_moves_weighed(float[:] m, object new, list before, list where, list count, list label,
                               list vis, Py_ssize_t nc)
