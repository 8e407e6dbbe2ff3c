# Writes a copy of a trace with its model-sizes block replaced:
#   cmake -DSOURCE=trace.py -DSIZES=x.sizes -DOUTPUT=copy.py -P shrink_trace.cmake
# The block runs from the line starting "# >>> model sizes" to the line
# "# <<< model sizes"; everything else is the trace as committed, so the copy
# runs the same kernels and orchestration at other sizes.
set(begin_marker "# >>> model sizes")
set(end_marker "# <<< model sizes\n")
file(READ "${SOURCE}" text)
file(READ "${SIZES}" sizes)
string(FIND "${text}" "${begin_marker}" begin)
string(FIND "${text}" "${end_marker}" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${SOURCE}: expected a '${begin_marker}' ... '# <<< model sizes' block")
endif()
string(LENGTH "${end_marker}" end_length)
math(EXPR tail_start "${end} + ${end_length}")
string(SUBSTRING "${text}" 0 ${begin} head)
string(SUBSTRING "${text}" ${tail_start} -1 tail)
file(WRITE "${OUTPUT}" "${head}${sizes}${tail}")
