# Request signing, response-signature verification, base64 and RFC 3339 timestamps: the
# code the server and the client SDK share, so both pass the same vectors. Its
# cryptography goes through src/auth/crypto_primitives.h, implemented for
# LICENSED_CRYPTO_BACKEND: "openssl" (the default: the server, and the SDK on Linux and
# macOS) or "bcrypt" (Windows CNG: the SDK for Windows, which ships with nothing beside
# it). Position-independent and with hidden symbols because the SDK's shared library
# links it. Included by the server's CMakeLists.txt and by client/CMakeLists.txt when the
# client is built alone (cmake -S client).
if(NOT DEFINED LICENSED_CRYPTO_BACKEND)
  set(LICENSED_CRYPTO_BACKEND openssl)
endif()
if(NOT LICENSED_CRYPTO_BACKEND MATCHES "^(openssl|bcrypt)$")
  message(FATAL_ERROR "LICENSED_CRYPTO_BACKEND is openssl or bcrypt, not ${LICENSED_CRYPTO_BACKEND}")
endif()
get_filename_component(LICENSED_SRC_DIR ${CMAKE_CURRENT_LIST_DIR}/../src ABSOLUTE)
set(LICENSED_SIGNING_COMMON_SOURCES
    ${LICENSED_SRC_DIR}/auth/base64.cpp
    ${LICENSED_SRC_DIR}/auth/armour.cpp
    ${LICENSED_SRC_DIR}/auth/offline_file.cpp
    ${LICENSED_SRC_DIR}/auth/lease_file.cpp
    ${LICENSED_SRC_DIR}/core/timestamp.cpp
    ${LICENSED_SRC_DIR}/auth/request_signature.cpp
    ${LICENSED_SRC_DIR}/auth/response_signature.cpp
    ${LICENSED_SRC_DIR}/auth/response_tree.cpp)
# Every file of the signing code, both backends: the server's layers leave them all to
# licensed_signing (CMakeLists.txt, licensed_layer).
set(LICENSED_SIGNING_SOURCES ${LICENSED_SIGNING_COMMON_SOURCES}
    ${LICENSED_SRC_DIR}/auth/crypto_primitives_openssl.cpp
    ${LICENSED_SRC_DIR}/auth/crypto_primitives_bcrypt.cpp)
if(LICENSED_CRYPTO_BACKEND STREQUAL "openssl")
  set(LICENSED_CRYPTO_LIBS OpenSSL::Crypto)
else()
  set(LICENSED_CRYPTO_LIBS bcrypt)
endif()
add_library(licensed_signing_objects OBJECT ${LICENSED_SIGNING_COMMON_SOURCES}
            ${LICENSED_SRC_DIR}/auth/crypto_primitives_${LICENSED_CRYPTO_BACKEND}.cpp)
target_include_directories(licensed_signing_objects PUBLIC $<BUILD_INTERFACE:${LICENSED_SRC_DIR}>)
# auth/offline_file.cpp reads JSON with Boost.JSON's headers; no JSON library is linked
# here: the server's layers link Boost::json, the SDK compiles Boost.JSON in from its
# headers (client/src/json_impl.cpp), so the plugin's library needs no Boost library
# (auth/offline_file.h says more).
target_include_directories(licensed_signing_objects SYSTEM PRIVATE ${Boost_INCLUDE_DIRS})
target_link_libraries(licensed_signing_objects PUBLIC ${LICENSED_CRYPTO_LIBS})
target_compile_features(licensed_signing_objects PUBLIC cxx_std_17)
set_target_properties(licensed_signing_objects PROPERTIES POSITION_INDEPENDENT_CODE ON
                      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
# The same objects as an archive, for the server's layers, licensectl and the tests; the
# SDK's static library takes the objects themselves (client/CMakeLists.txt).
add_library(licensed_signing STATIC $<TARGET_OBJECTS:licensed_signing_objects>)
target_include_directories(licensed_signing PUBLIC $<BUILD_INTERFACE:${LICENSED_SRC_DIR}>)
target_link_libraries(licensed_signing PUBLIC ${LICENSED_CRYPTO_LIBS})
