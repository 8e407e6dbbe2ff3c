# Writes a comparison variant of a trace's description: each string of the
# list FROM replaced by the string of TO at the same place (e.g. the Qwen3
# step's `PIPELINED = True` turned off).
#   cmake -DSOURCE=in.py -DOUTPUT=copy.py "-DFROM=a;b" "-DTO=c;d" -P variant_trace.cmake
file(READ "${SOURCE}" text)
foreach(from to IN ZIP_LISTS FROM TO)
  string(FIND "${text}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE}: expected '${from}' to replace")
  endif()
  string(REPLACE "${from}" "${to}" text "${text}")
endforeach()
file(WRITE "${OUTPUT}" "${text}")
