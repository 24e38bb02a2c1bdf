# KILN_ONNX_PYTHON_EXECUTABLE: a Python that imports numpy and onnx, for the
# scripts that make or read ONNX models (samples/models, tests/conformance);
# empty where there is none, and those tests are then not registered.
#
# Debian's python3-numpy and python3-onnx are installed for /usr/bin/python3;
# a pyenv `python3` first on PATH may lack them, so /usr/bin/python3 is tried
# before the Python that find_package finds. KILN_ONNX_PYTHON overrides both.
set(KILN_ONNX_PYTHON "" CACHE FILEPATH
    "Python with the numpy and onnx packages (default: the first of /usr/bin/python3 and python3 that has them)")
set(KILN_ONNX_PYTHON_EXECUTABLE "")
find_package(Python3 COMPONENTS Interpreter QUIET)
foreach(_python ${KILN_ONNX_PYTHON} /usr/bin/python3 ${Python3_EXECUTABLE})
  if(EXISTS ${_python})
    execute_process(COMMAND ${_python} -c "import numpy, onnx"
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(KILN_ONNX_PYTHON_EXECUTABLE ${_python})
      break()
    endif()
  endif()
endforeach()
