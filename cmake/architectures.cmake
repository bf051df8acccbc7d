# Which GPUs the CUDA code is compiled for (see the README's "Architectures").
#
# memhier_choose_architectures(), before project(): keeps -DCMAKE_CUDA_ARCHITECTURES or
# $CUDAARCHS; else targets the compute capabilities nvidia-smi reports on this machine; else
# sets CMAKE_CUDA_ARCHITECTURES OFF and MEMHIER_EVERY_CARD, and memhier_every_card_gencode(),
# after project(), builds MEMHIER_CUDA_GENCODE for every card the toolkit can target.
# memhier_cuda_target(tgt) gives a CUDA target those flags (nothing when a list was chosen).

function(memhier_choose_architectures)
  set(MEMHIER_EVERY_CARD OFF PARENT_SCOPE)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    message(STATUS "memhier: CUDA architectures as given")
    return()
  endif()
  find_program(MEMHIER_NVIDIA_SMI nvidia-smi)
  set(caps "")
  if(MEMHIER_NVIDIA_SMI)
    execute_process(COMMAND ${MEMHIER_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" found "${out}")
      foreach(cap IN LISTS found)
        string(REPLACE "." "" cap "${cap}")
        list(APPEND caps ${cap})
      endforeach()
      list(REMOVE_DUPLICATES caps)
    endif()
  endif()
  if(caps)
    message(STATUS "memhier: CUDA architectures of this machine's GPUs: ${caps}")
    set(CMAKE_CUDA_ARCHITECTURES "${caps}" CACHE STRING "CUDA architectures (this machine's GPUs)")
  else()
    message(STATUS "memhier: no GPU seen; CUDA code for every supported card")
    # Not cached: the next configure decides again (a GPU may have appeared).
    set(CMAKE_CUDA_ARCHITECTURES OFF PARENT_SCOPE)
    set(MEMHIER_EVERY_CARD ON PARENT_SCOPE)
  endif()
endfunction()

# Machine code for sm_80, 86 and 89 from one compile of compute_80 (ptxas alone differs), and
# for sm_90, 100 and 120 from one compile of compute_90, whose PTX is embedded too so a later
# card can JIT it: nothing here uses a feature newer than sm_90 outside the sm_90a files, so
# further front-end passes would compile the same code again (on one GEMM file: 8.1 s of CPU
# against 9.7 s with compute_100 and compute_120 passes; one card alone 3.4 s). Each target as
# far as this nvcc knows it.
function(memhier_every_card_gencode)
  set(MEMHIER_CUDA_GENCODE "" PARENT_SCOPE)
  if(NOT MEMHIER_EVERY_CARD)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-code OUTPUT_VARIABLE known
    RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "memhier: '${CMAKE_CUDA_COMPILER} --list-gpu-code' failed; give "
                        "-DCMAKE_CUDA_ARCHITECTURES=<list> instead.")
  endif()
  set(flags "")
  foreach(group "80:80,86,89" "90:90,100,120")
    string(REPLACE ":" ";" parts "${group}")
    list(GET parts 0 virtual)
    list(GET parts 1 reals)
    string(REPLACE "," ";" reals "${reals}")
    set(codes "")
    foreach(r IN LISTS reals)
      if(known MATCHES "sm_${r}[^0-9a-z]|sm_${r}$")
        list(APPEND codes sm_${r})
      endif()
    endforeach()
    if(NOT "sm_${virtual}" IN_LIST codes)
      message(FATAL_ERROR "memhier: this nvcc cannot target sm_${virtual}; CUDA 12.4 or newer "
                          "is needed.")
    endif()
    if(virtual EQUAL 90)
      list(APPEND codes compute_90)
    endif()
    string(REPLACE ";" "," codes "${codes}")
    list(APPEND flags "--generate-code=arch=compute_${virtual},code=[${codes}]")
  endforeach()
  message(STATUS "memhier: ${flags}")
  set(MEMHIER_CUDA_GENCODE "${flags}" PARENT_SCOPE)
endfunction()

function(memhier_cuda_target tgt)
  if(MEMHIER_CUDA_GENCODE)
    target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${MEMHIER_CUDA_GENCODE}>)
  endif()
endfunction()
