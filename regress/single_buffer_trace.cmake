# Writes the single-buffered copy of the Qwen3 trace (the comparison
# workload of the core-pipes issue): its `PIPELINED = True` flag turned off.
#   cmake -DSOURCE=qwen3_14b_decode.py -DOUTPUT=copy.py -P single_buffer_trace.cmake
set(flag "PIPELINED = True")
file(READ "${SOURCE}" text)
string(FIND "${text}" "${flag}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${SOURCE}: expected a '${flag}' line to turn off")
endif()
string(REPLACE "${flag}" "PIPELINED = False" text "${text}")
file(WRITE "${OUTPUT}" "${text}")
