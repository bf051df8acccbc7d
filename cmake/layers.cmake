# The floors of memhier, lowest first: the one table the configure-time link check
# (memhier_check_layers, called at the end of src/CMakeLists.txt) and the header test
# (tests/layers/check_headers.cmake) both read. A floor is a folder under src/ and
# include/memhier/; its libraries are memhier_<floor>, memhier_<floor>_host and
# memhier_<floor>_sm90a, and the command (memhier) is the floor "cli". Floors on one line
# share a rank: neither may link or include the other.
set(MEMHIER_LAYERS
  "model"                      # plain C++17, no CUDA: arch tables, the models, the parsers
  "results core"               # plain data (records, checks, claim ids); CUDA host utilities
  "report"                     # records -> sections -> terminal, JSON, Markdown, ... (no CUDA)
  "claims"                     # the catalogue and the one judge, over results and sections
  "registry"                   # Family, Case, Variant, probe entries: what the floors above fill
  "kernels probe profile"      # the ladders, the probes, the profiler's patterns
  "bench"                      # walks the registry: verify, time, compare, profile, simulate
  "run"                        # the run pipeline
  "cli")                       # the memhier command
# Interface targets of build settings, not floors.
set(MEMHIER_LAYER_EXEMPT memhier_warnings memhier_sanitize)

# Sets ${out} to the rank of floor `layer` (0 lowest), or -1 when the table lacks it.
function(memhier_layer_rank layer out)
  set(rank 0)
  foreach(line IN LISTS MEMHIER_LAYERS)
    string(REPLACE " " ";" names "${line}")
    if(layer IN_LIST names)
      set(${out} ${rank} PARENT_SCOPE)
      return()
    endif()
    math(EXPR rank "${rank} + 1")
  endforeach()
  set(${out} -1 PARENT_SCOPE)
endfunction()

# Sets ${out} to the floor of target `tgt` (memhier_probe_host -> probe, memhier -> cli).
function(memhier_target_layer tgt out)
  if(tgt STREQUAL "memhier")
    set(${out} cli PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "^memhier_" "" layer "${tgt}")
  string(REGEX REPLACE "_(host|sm90a)$" "" layer "${layer}")
  set(${out} ${layer} PARENT_SCOPE)
endfunction()

# Fails configuration, in one sentence, when a memhier library or the command links one of
# a higher floor or of its own rank (LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES), or has no
# floor in the table.
function(memhier_check_layers)
  get_property(targets DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(tgt IN LISTS targets)
    if(NOT tgt MATCHES "^memhier(_.*)?$" OR tgt IN_LIST MEMHIER_LAYER_EXEMPT)
      continue()
    endif()
    memhier_target_layer(${tgt} layer)
    memhier_layer_rank(${layer} rank)
    if(rank LESS 0)
      message(FATAL_ERROR "Layering: ${tgt} belongs to no floor of MEMHIER_LAYERS in "
                          "cmake/layers.cmake; add its floor there.")
    endif()
    get_target_property(links ${tgt} LINK_LIBRARIES)
    get_target_property(interface_links ${tgt} INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS links interface_links)
      # PRIVATE links of a static library reach its interface as $<LINK_ONLY:dep>.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
      if(NOT dep MATCHES "^memhier(_.*)?$" OR dep IN_LIST MEMHIER_LAYER_EXEMPT
         OR dep STREQUAL tgt)
        continue()
      endif()
      memhier_target_layer(${dep} dep_layer)
      memhier_layer_rank(${dep_layer} dep_rank)
      if(dep_layer STREQUAL layer)
        continue()  # memhier_probe -> memhier_probe_host: one floor's own parts
      endif()
      if(dep_rank LESS 0 OR NOT dep_rank LESS rank)
        message(FATAL_ERROR "Layering: ${tgt} (floor ${layer}) links ${dep} (floor "
                            "${dep_layer}), which is not under it in cmake/layers.cmake.")
      endif()
    endforeach()
  endforeach()
endfunction()
