# Request signing, response-signature verification, base64 and RFC 3339 timestamps: the
# code the server and the client SDK share, so both pass the same vectors. OpenSSL only;
# position-independent and with hidden symbols because the SDK's shared library links it.
# Included by the server's CMakeLists.txt and by client/CMakeLists.txt when the client is
# built alone (cmake -S client).
set(LICENSED_SRC_DIR ${CMAKE_CURRENT_LIST_DIR}/../src)
add_library(licensed_signing_objects OBJECT
            ${LICENSED_SRC_DIR}/auth/base64.cpp
            ${LICENSED_SRC_DIR}/core/timestamp.cpp
            ${LICENSED_SRC_DIR}/auth/request_signature.cpp
            ${LICENSED_SRC_DIR}/auth/response_signature.cpp
            ${LICENSED_SRC_DIR}/auth/response_tree.cpp)
target_include_directories(licensed_signing_objects PUBLIC $<BUILD_INTERFACE:${LICENSED_SRC_DIR}>)
target_link_libraries(licensed_signing_objects PUBLIC OpenSSL::Crypto)
target_compile_features(licensed_signing_objects PUBLIC cxx_std_17)
set_target_properties(licensed_signing_objects PROPERTIES POSITION_INDEPENDENT_CODE ON
                      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
# The same objects as an archive, for the server's layers, licensectl and the tests; the
# SDK's static library takes the objects themselves (client/CMakeLists.txt).
add_library(licensed_signing STATIC $<TARGET_OBJECTS:licensed_signing_objects>)
target_include_directories(licensed_signing PUBLIC $<BUILD_INTERFACE:${LICENSED_SRC_DIR}>)
target_link_libraries(licensed_signing PUBLIC OpenSSL::Crypto)
