"""Three helpers of the native runtime that C does with the C library (recycle/native/c/cexpr.py
translates each call into one ``memcpy`` or ``memcmp``: a loop moves a cell in about three
instructions); in Python, as the runtime's own meaning, NumPy slices. Both arrays have one dtype
(the translator refuses two)."""

from __future__ import annotations


class _CopyCells:
    """``copy_cells(dst, src, n)``: the first ``n`` cells of ``src`` (in C order) into ``dst``,
    arrays of one dtype; in C one ``memcpy`` (recycle/native/c/cexpr.py), here a slice."""

    c_copy = True
    __name__ = "copy_cells"

    def __call__(self, dst, src, n):
        dst.reshape(-1)[:n] = src.reshape(-1)[:n]


copy_cells = _CopyCells()


class _SameCells:
    """``same_cells(a, i, b, j, n)``: are the ``n`` cells of ``a`` from ``i`` those of ``b`` from
    ``j`` (arrays of one dimension and dtype)? In C one ``memcmp``, here a comparison."""

    c_same = True
    __name__ = "same_cells"

    def __call__(self, a, i, b, j, n):
        return bool((a[i : i + n] == b[j : j + n]).all())


same_cells = _SameCells()


class _CopyCellsAt:
    """``copy_cells_at(dst, i, src, j, n)``: the ``n`` cells of ``src`` from ``j`` into ``dst``
    from ``i`` (arrays of one dimension and dtype); in C one ``memcpy``, here a slice."""

    c_copy_at = True
    __name__ = "copy_cells_at"

    def __call__(self, dst, i, src, j, n):
        dst[i : i + n] = src[j : j + n]


copy_cells_at = _CopyCellsAt()
