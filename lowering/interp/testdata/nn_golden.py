#!/usr/bin/env python3
"""Prints the golden values of lowering/interp/nn_test.cc, computed here with loops of our own.

    python3 lowering/interp/testdata/nn_golden.py                 # prints every case
    python3 lowering/interp/testdata/nn_golden.py --check lowering/interp/nn_test.cc

Standard library only, and nothing from the interpreter: conv2d is the textbook sum;
conv2d_transpose takes another route (zero insertion between the inputs, padding, then a
convolution with the kernel flipped and its channel axes swapped); pooling, batch_norm,
layer_norm, softmax and log_softmax come from their formulas. Layouts are Relay's: NCHW data,
OIHW conv2d weights, IOHW conv2d_transpose weights; a padding of 1, 2 or 4 values is (all),
(top and bottom, left and right) or (top, left, bottom, right).

Inputs are Vals(shape, mul, mod, off, scale) = ((i * mul) % mod - off) * scale, as in the test,
or literal tensors: multiples of 1/4, so every sum of products is exact. Each case prints as
the std::vector<double> literal the test holds, after a comment naming its TEST;
`nn_golden_test` (lowering/interp/BUILD) runs --check, which fails when the test's values
and these differ (testdata/golden.py says how they are compared).
"""

import math
import sys

import golden
from golden import Case, add_all


def vals(shape, mul, mod, off, scale):
    n = math.prod(shape)
    return [((i * mul) % mod - off) * scale for i in range(n)]


def pad4(padding):
    """(top, left, bottom, right) from Relay's 1, 2 or 4 padding values."""
    if len(padding) == 1:
        return (padding[0],) * 4
    if len(padding) == 2:
        return (padding[0], padding[1], padding[0], padding[1])
    return tuple(padding)


def conv2d(x, xs, w, ws, strides=(1, 1), padding=(0,), dilation=(1, 1), groups=1):
    """out[n, o, y, x] = sum over c, ky, kx of data[n, g*C/G + c, y*s - pad + ky*d, ...]
    * weight[o, c, ky, kx], where g is o's group and positions outside the data are zero."""
    n_, c_, h, wd = xs
    o_, cg, kh, kw = ws
    pt, pl, pb, pr = pad4(padding)
    sh, sw = strides
    dh, dw = dilation
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    og = o_ // groups
    out = []
    for n in range(n_):
        for o in range(o_):
            g = o // og
            for y in range(oh):
                for xx in range(ow):
                    acc = 0.0
                    for c in range(cg):
                        ci = g * cg + c
                        for ky in range(kh):
                            iy = y * sh - pt + ky * dh
                            if not 0 <= iy < h:
                                continue
                            for kx in range(kw):
                                ix = xx * sw - pl + kx * dw
                                if not 0 <= ix < wd:
                                    continue
                                acc += (x[((n * c_ + ci) * h + iy) * wd + ix] *
                                        w[((o * cg + c) * kh + ky) * kw + kx])
                    out.append(acc)
    return out, (n_, o_, oh, ow)


def conv2d_transpose(x, xs, w, ws, strides=(1, 1), padding=(0,), dilation=(1, 1), groups=1,
                     output_padding=(0, 0)):
    """The gradient of conv2d as a convolution: put stride - 1 zeros between the inputs, pad
    each side with dilation * (k - 1) minus that side's padding (plus output_padding at the
    end; a negative amount crops), and convolve (stride 1, same dilation) with the kernel
    flipped in space, its in/out channel axes swapped."""
    n_, c_, h, wd = xs
    ci_, og, kh, kw = ws
    assert ci_ == c_
    pt, pl, pb, pr = pad4(padding)
    sh, sw = strides
    dh, dw = dilation
    oph, opw = output_padding
    # Zero insertion.
    zh, zw = (h - 1) * sh + 1, (wd - 1) * sw + 1
    z = [0.0] * (n_ * c_ * zh * zw)
    for n in range(n_):
        for c in range(c_):
            for y in range(h):
                for xx in range(wd):
                    z[((n * c_ + c) * zh + y * sh) * zw + xx * sw] = (
                        x[((n * c_ + c) * h + y) * wd + xx])
    # Padding (or cropping).
    top, left = dh * (kh - 1) - pt, dw * (kw - 1) - pl
    bottom, right = dh * (kh - 1) - pb + oph, dw * (kw - 1) - pr + opw
    ph, pw = zh + top + bottom, zw + left + right
    p = [0.0] * (n_ * c_ * ph * pw)
    for n in range(n_):
        for c in range(c_):
            for y in range(ph):
                for xx in range(pw):
                    zy, zx = y - top, xx - left
                    if 0 <= zy < zh and 0 <= zx < zw:
                        p[((n * c_ + c) * ph + y) * pw + xx] = z[((n * c_ + c) * zh + zy) * zw + zx]
    # The flipped kernel as an OIHW conv2d weight: flipped[g*og + o, c, ky, kx] =
    # w[g*cg + c, o, kh-1-ky, kw-1-kx].
    cg = c_ // groups
    flipped = []
    for g in range(groups):
        for o in range(og):
            for c in range(cg):
                for ky in range(kh):
                    for kx in range(kw):
                        flipped.append(w[(((g * cg + c) * og + o) * kh + (kh - 1 - ky)) * kw +
                                         (kw - 1 - kx)])
    return conv2d(p, (n_, c_, ph, pw), flipped, (groups * og, cg, kh, kw), dilation=dilation,
                  groups=groups)


def pool_extent(size, k, s, p0, p1, d, ceil_mode):
    """Output length of a pooling axis. With ceil_mode a last window that would start in the
    end padding (or past it) is dropped, as ONNX and PyTorch do."""
    span = size + p0 + p1 - d * (k - 1) - 1
    if not ceil_mode:
        return span // s + 1
    out = -(-span // s) + 1
    if (out - 1) * s >= size + p0:
        out -= 1
    return out


def pool2d(x, xs, kind, pool, strides, padding=(0,), dilation=(1, 1), ceil_mode=False,
           count_include_pad=False):
    """Max or average over each window's positions inside the data. An average divides by
    that count, or with count_include_pad by the positions inside data + padding (a ceil_mode
    window's positions past the padding never count)."""
    n_, c_, h, wd = xs
    pt, pl, pb, pr = pad4(padding)
    sh, sw = strides
    dh, dw = dilation
    kh, kw = pool
    oh = pool_extent(h, kh, sh, pt, pb, dh, ceil_mode)
    ow = pool_extent(wd, kw, sw, pl, pr, dw, ceil_mode)
    out = []
    for n in range(n_):
        for c in range(c_):
            for y in range(oh):
                for xx in range(ow):
                    inside = []
                    padded = 0
                    for ky in range(kh):
                        iy = y * sh - pt + ky * dh
                        for kx in range(kw):
                            ix = xx * sw - pl + kx * dw
                            if -pt <= iy < h + pb and -pl <= ix < wd + pr:
                                padded += 1
                            if 0 <= iy < h and 0 <= ix < wd:
                                inside.append(x[((n * c_ + c) * h + iy) * wd + ix])
                    if kind == "max":
                        out.append(max(inside))
                    else:
                        out.append(add_all(inside) / (padded if count_include_pad else len(inside)))
    return out


def batch_norm(x, shape, gamma, beta, mean, var, axis=1, epsilon=1e-5, center=True, scale=True):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta, the statistics indexed by `axis`."""
    axis %= len(shape)
    inner = math.prod(shape[axis + 1:])
    out = []
    for i, v in enumerate(x):
        c = (i // inner) % shape[axis]
        y = (v - mean[c]) / math.sqrt(var[c] + epsilon)
        if scale:
            y *= gamma[c]
        if center:
            y += beta[c]
        out.append(y)
    return out


def rows_along(shape, axis):
    """Lists of flat indices, one per line of `shape` along `axis`."""
    axis %= len(shape)
    inner = math.prod(shape[axis + 1:])
    outer = math.prod(shape[:axis])
    return [[(o * shape[axis] + k) * inner + i for k in range(shape[axis])]
            for o in range(outer) for i in range(inner)]


def layer_norm(x, shape, gamma, beta, axis=-1, epsilon=1e-5):
    """(x - mean) / sqrt(variance + epsilon) * gamma + beta over `axis` (population variance);
    gamma and beta are indexed along `axis`."""
    out = [0.0] * len(x)
    for line in rows_along(shape, axis):
        n = len(line)
        mean = add_all(x[i] for i in line) / n
        var = add_all((x[i] - mean) * (x[i] - mean) for i in line) / n
        for k, i in enumerate(line):
            out[i] = (x[i] - mean) / math.sqrt(var + epsilon) * gamma[k] + beta[k]
    return out


def softmax(x, shape, axis=-1, log=False):
    """exp(x - max) / sum exp(x - max); log_softmax is x - max - log(sum exp(x - max))."""
    out = [0.0] * len(x)
    for line in rows_along(shape, axis):
        m = max(x[i] for i in line)
        total = add_all(math.exp(x[i] - m) for i in line)
        for i in line:
            out[i] = x[i] - m - math.log(total) if log else math.exp(x[i] - m) / total
    return out


def cases():
    data = vals((2, 3, 5, 5), 7, 11, 5, 0.25)
    weight = vals((4, 3, 3, 3), 5, 7, 3, 0.5)
    conv_inputs = "Vals({2, 3, 5, 5}, 7, 11, 5, 0.25), Vals({4, 3, 3, 3}, 5, 7, 3, 0.5)"
    grouped = vals((1, 4, 3, 3), 3, 13, 6, 0.5)
    t_data = vals((1, 4, 3, 2), 5, 9, 4, 0.5)
    t_weight = vals((4, 3, 3, 2), 7, 11, 5, 0.25)
    t_inputs = "Vals({1, 4, 3, 2}, 5, 9, 4, 0.5), Vals({4, 3, 3, 2}, 7, 11, 5, 0.25)"
    pool_in = vals((1, 2, 5, 5), 7, 11, 5, 0.25)
    pool_inputs = "Vals({1, 2, 5, 5}, 7, 11, 5, 0.25)"
    bn_x = [1, 2, 3, 4, -1, 0.5, 2, 8]
    bn_stats = ([2, 0.5], [0.1, -1], [2.5, 1.0], [1.25, 4.0])
    ln_x = [1, 2, 4, -1, 0, 3.5]
    sm_x = [1, 2, 3, -1, 0, 5]

    def conv(*args, **kwargs):
        return conv2d(*args, **kwargs)[0]

    def convt(*args, **kwargs):
        return conv2d_transpose(*args, **kwargs)[0]

    out = [
        Case("Conv2DTest.PaddingOfOneValue", f"nn.conv2d of {conv_inputs}, padding 1",
             conv(data, (2, 3, 5, 5), weight, (4, 3, 3, 3), padding=(1,))),
        Case("Conv2DTest.PaddingOfTwoValues", f"nn.conv2d of {conv_inputs}, padding (0, 1)",
             conv(data, (2, 3, 5, 5), weight, (4, 3, 3, 3), padding=(0, 1))),
        Case("Conv2DTest.StridesAsymmetricPaddingDilation",
             f"nn.conv2d of {conv_inputs}, strides (2, 1), padding (2, 1, 0, 2), dilation (2, 1)",
             conv(data, (2, 3, 5, 5), weight, (4, 3, 3, 3), strides=(2, 1), padding=(2, 1, 0, 2),
                  dilation=(2, 1))),
        Case("Conv2DTest.Groups",
             "nn.conv2d of Vals({1, 4, 3, 3}, 3, 13, 6, 0.5), Vals({6, 2, 2, 2}, 5, 9, 4, 0.25), "
             "groups 2",
             conv(grouped, (1, 4, 3, 3), vals((6, 2, 2, 2), 5, 9, 4, 0.25), (6, 2, 2, 2),
                  groups=2)),
        Case("Conv2DTest.DepthwiseWithChannelMultiplier",
             "nn.conv2d of Vals({1, 4, 3, 3}, 3, 13, 6, 0.5), Vals({8, 1, 2, 2}, 3, 7, 3, 1.0), "
             "groups 4, padding 1",
             conv(grouped, (1, 4, 3, 3), vals((8, 1, 2, 2), 3, 7, 3, 1.0), (8, 1, 2, 2),
                  padding=(1, 1, 1, 1), groups=4)),
        Case("Conv2DTransposeTest.Plain", f"nn.conv2d_transpose of {t_inputs}",
             convt(t_data, (1, 4, 3, 2), t_weight, (4, 3, 3, 2))),
        Case("Conv2DTransposeTest.StridesPaddingOutputPadding",
             f"nn.conv2d_transpose of {t_inputs}, strides (2, 3), padding (1, 0, 0, 1), "
             "output_padding (1, 2)",
             convt(t_data, (1, 4, 3, 2), t_weight, (4, 3, 3, 2), strides=(2, 3),
                   padding=(1, 0, 0, 1), output_padding=(1, 2))),
        Case("Conv2DTransposeTest.GroupsAndDilation",
             f"nn.conv2d_transpose of {t_inputs}, groups 2, dilation (2, 1), strides (1, 2), "
             "padding 1",
             convt(t_data, (1, 4, 3, 2), t_weight, (4, 3, 3, 2), strides=(1, 2), padding=(1,),
                   dilation=(2, 1), groups=2)),
        Case("BatchNormTest.NormalisesPerChannelAndPassesStatisticsThrough",
             "nn.batch_norm of (1, 2, 2, 2) {1, 2, 3, 4, -1, 0.5, 2, 8}, gamma {2, 0.5}, "
             "beta {0.1, -1}, mean {2.5, 1}, var {1.25, 4}",
             batch_norm(bn_x, (1, 2, 2, 2), *bn_stats)),
        Case("BatchNormTest.WithoutCenterAndScale",
             "the same without center and scale, epsilon 1e-3",
             batch_norm(bn_x, (1, 2, 2, 2), *bn_stats, epsilon=1e-3, center=False, scale=False)),
        Case("BatchNormTest.LastAxis", "the same values as (4, 2), axis -1",
             batch_norm(bn_x, (4, 2), *bn_stats, axis=-1)),
        Case("LayerNormTest.LastAxis",
             "nn.layer_norm of (2, 3) {1, 2, 4, -1, 0, 3.5}, gamma {1, 2, 0.5}, beta {0, 1, -1}",
             layer_norm(ln_x, (2, 3), [1, 2, 0.5], [0, 1, -1])),
        Case("LayerNormTest.FirstAxis", "the same data, axis 0, gamma {3, -1}, beta {0.5, 0.25}, "
             "epsilon 1e-2",
             layer_norm(ln_x, (2, 3), [3, -1], [0.5, 0.25], axis=0, epsilon=1e-2)),
        Case("SoftmaxTest.LastAxis", "nn.softmax of (2, 3) {1, 2, 3, -1, 0, 5}",
             softmax(sm_x, (2, 3)), exact=False),
        Case("SoftmaxTest.LastAxis", "nn.log_softmax of the same",
             softmax(sm_x, (2, 3), log=True), exact=False),
        Case("SoftmaxTest.FirstAxis", "nn.softmax of the same, axis 0",
             softmax(sm_x, (2, 3), axis=0), exact=False),
        Case("SoftmaxTest.LargeInputsDoNotOverflow", "nn.softmax of {1000, 1001}",
             softmax([1000, 1001], (2,)), exact=False),
        Case("SoftmaxTest.LargeInputsDoNotOverflow", "nn.log_softmax of {1000, 1001}",
             softmax([1000, 1001], (2,), log=True), exact=False),
        Case("MaxPool2DTest.PaddingAndStrides",
             f"nn.max_pool2d of {pool_inputs}, pool 3, strides 2, padding 1",
             pool2d(pool_in, (1, 2, 5, 5), "max", (3, 3), (2, 2), padding=(1,))),
        Case("MaxPool2DTest.DilationAndCeilMode",
             f"nn.max_pool2d of {pool_inputs}, pool 2, strides 2, dilation (2, 1), ceil_mode",
             pool2d(pool_in, (1, 2, 5, 5), "max", (2, 2), (2, 2), dilation=(2, 1),
                    ceil_mode=True)),
        Case("AvgPool2DTest.CountIncludePad",
             f"nn.avg_pool2d of {pool_inputs}, pool 3, strides 2, padding 1",
             pool2d(pool_in, (1, 2, 5, 5), "avg", (3, 3), (2, 2), padding=(1,))),
        Case("AvgPool2DTest.CountIncludePad", "the same with count_include_pad",
             pool2d(pool_in, (1, 2, 5, 5), "avg", (3, 3), (2, 2), padding=(1,),
                    count_include_pad=True)),
    ]
    # One literal per branch of `include ? ... : ...`, in the order the test writes them.
    for include in (True, False):
        out.append(
            Case("AvgPool2DTest.CeilModeWithAsymmetricPadding",
                 f"nn.avg_pool2d of {pool_inputs}, pool (2, 3), strides 2, padding (0, 1, 1, 0), "
                 f"ceil_mode, count_include_pad {include}",
                 pool2d(pool_in, (1, 2, 5, 5), "avg", (2, 3), (2, 2), padding=(0, 1, 1, 0),
                        ceil_mode=True, count_include_pad=include)))
    return out


if __name__ == "__main__":
    sys.exit(golden.main("lowering/interp/testdata/nn_golden.py", cases(), sys.argv))
