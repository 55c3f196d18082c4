! The Fortran interfaces of omp_lib (libomp's own module, built by gfortran
! with LIBOMP_FORTRAN_MODULES) on the host, KMP_NEXTTOUCH_FORCE=1 and
! KMP_READONLY_FORCE=1 so that the one-node host records requests and makes
! replicas.  kmp_nexttouch, kmp_nexttouch_disarm and kmp_readonly_release
! in their array form (rank 2 and 3, strided sections forwards and
! backwards, character and derived-type arrays, an empty array, a scalar on
! the stack) and their c_ptr form: the pages each call arms are those from
! the lowest to the highest element, the stat codes are the C API's; the
! counters type has omp.h's layout (every byte written, the last field in
! place); the readonly API reads replicas with the right answer, through
! kmp_readonly_ptr and kmp_readonly_ptrs alike.
!
! REQUIRES: gfortran, linux
! RUN: %gfortran-compile
! RUN: env KMP_NEXTTOUCH_FORCE=1 KMP_READONLY_FORCE=1 OMP_NUM_THREADS=2 %t \
! RUN:   | FileCheck %s
!
! CHECK: fortran_api: rank 2: stat 0, pages as expected
! CHECK: fortran_api: section 1:n:2: stat 0, pages as expected
! CHECK: fortran_api: section n:1:-2: stat 0, pages as expected
! CHECK: fortran_api: rank 3: stat 0, pages as expected
! CHECK: fortran_api: character: stat 0, pages as expected
! CHECK: fortran_api: derived type: stat 0, pages as expected
! CHECK: fortran_api: c_ptr: stat 0, pages as expected
! CHECK: fortran_api: disarm: stat 0, pages as expected
! CHECK: fortran_api: readonly: replicas read, sum as expected
! CHECK: fortran_api: PASS
module fortran_api_util
  use, intrinsic :: iso_c_binding
  use omp_lib
  implicit none
  integer :: failures = 0, team_size = 0
  integer(c_intptr_t) :: pgsz
  interface
    function getpagesize() bind(c)
      import :: c_int
      integer(c_int) :: getpagesize
    end function getpagesize
  end interface
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      print '(a, a)', 'FAIL: ', what
      failures = failures + 1
    end if
  end subroutine check

  ! Pages from address lo to address hi (inclusive).
  ! The whole pages in the bytes lo..hi (hi: the last byte): only those
  ! are armed.
  integer(c_int64_t) function npages(lo, hi)
    integer(c_intptr_t), intent(in) :: lo, hi
    npages = max(0_c_int64_t, int((hi + 1) / pgsz - (lo + pgsz - 1) / pgsz, &
                                  c_int64_t))
  end function npages

  integer(c_intptr_t) function addr(p)
    type(c_ptr), intent(in) :: p
    addr = transfer(p, addr)
  end function addr

  type(kmp_nexttouch_counters) function counters()
    counters%size = c_sizeof(counters)
    call check(kmp_get_nexttouch_counters(counters) == 0, 'counters')
  end function counters

  ! A fork of a team of two threads (that the compiler keeps) arms what is
  ! pending.
  subroutine fork()
!$omp parallel
!$omp single
    team_size = omp_get_num_threads()
!$omp end single
!$omp end parallel
    call check(team_size == 2, 'a team of two threads')
  end subroutine fork

  ! A parallel region arms what is pending; the pages armed are compared
  ! with want, then the armed pages are disarmed for the next case.
  subroutine expect_armed(what, st, want)
    character(*), intent(in) :: what
    integer, intent(in) :: st
    integer(c_int64_t), intent(in) :: want
    type(kmp_nexttouch_counters) :: c
    integer :: rc
    call fork()
    c = counters()
    call check(st == 0, what // ': stat')
    call check(c%requests == 1, what // ': one request')
    call check(c%pages_armed == want, what // ': pages armed')
    if (c%pages_armed /= want) print *, c%pages_armed, want
    if (st == 0 .and. c%requests == 1 .and. c%pages_armed == want) &
      print '(a, a, a)', 'fortran_api: ', what, ': stat 0, pages as expected'
    call kmp_nexttouch_disarm(c_null_ptr, 0_c_size_t, rc)
    call check(rc == 0, what // ': disarm all')
    call kmp_reset_nexttouch_counters()
  end subroutine expect_armed

  ! A local of a recursive procedure is on the stack: EINVAL.
  recursive subroutine stack_scalar()
    real(8) :: x
    integer :: st
    x = 1
    call kmp_nexttouch(x, st)
    call check(st == 22, 'a scalar on the stack: EINVAL')
  end subroutine stack_scalar
end module fortran_api_util

program fortran_api
  use fortran_api_util
  implicit none
  integer, parameter :: n = 64
  type pair
    real(8) :: x
    integer(4) :: k
  end type pair
  real(8), allocatable, target :: a(:, :), m(:, :), v(:)
  real(4), allocatable, target :: b(:, :, :)
  character(len=10), allocatable, target :: s(:)
  type(pair), allocatable, target :: t(:)
  real(8), allocatable :: z(:)
  real(8), pointer :: pm(:, :), pv(:)
  type(c_ptr), pointer :: ro_ptrs(:)
  type(c_ptr), target :: ptrs(2), names(2)
  integer(c_size_t) :: lens(2)
  character(len=2, kind=c_char), target :: name_m, name_v
  type(kmp_nexttouch_counters) :: c
  integer(c_int64_t), allocatable :: raw(:)
  type(c_ptr) :: h
  integer :: st, i, j
  logical :: replica
  real(8) :: sum_ro, sum_ref

  pgsz = getpagesize()
  call kmp_reset_nexttouch_counters()

  allocate(a(512, n))
  a = 1
  call kmp_nexttouch(a, st)
  call expect_armed('rank 2', st, npages(addr(c_loc(a(1, 1))), &
                                         addr(c_loc(a(512, n))) + 7))
  call kmp_nexttouch(a(:, 1:n:2), st)
  call expect_armed('section 1:n:2', st, npages(addr(c_loc(a(1, 1))), &
                                                addr(c_loc(a(512, n - 1))) + 7))
  call kmp_nexttouch(a(:, n:1:-2), stat=st)
  call expect_armed('section n:1:-2', st, npages(addr(c_loc(a(1, 2))), &
                                                 addr(c_loc(a(512, n))) + 7))

  allocate(b(40, 50, 60))
  b = 2
  call kmp_nexttouch(b, st)
  call expect_armed('rank 3', st, npages(addr(c_loc(b(1, 1, 1))), &
                                         addr(c_loc(b(40, 50, 60))) + 3))

  allocate(s(30000))
  s = 'nexttouch'
  call kmp_nexttouch(s, st)
  call expect_armed('character', st, npages(addr(c_loc(s(1))), &
                                            addr(c_loc(s(30000))) + 9))

  allocate(t(20000))
  t = pair(1.0d0, 3)
  call kmp_nexttouch(t, st)
  call expect_armed('derived type', st, npages(addr(c_loc(t(1))), &
                    addr(c_loc(t(20000))) + storage_size(t) / 8 - 1))

  call kmp_nexttouch(c_loc(a(1, 3)), int(pgsz, c_size_t) * 5, st)
  call expect_armed('c_ptr', st, npages(addr(c_loc(a(1, 3))), &
                                        addr(c_loc(a(1, 3))) + pgsz * 5 - 1))

  ! An empty array is a no-op; bad ranges give the C API's codes.
  allocate(z(0))
  call kmp_nexttouch(z, st)
  call check(st == 0, 'empty array: stat 0')
  call kmp_nexttouch(c_null_ptr, 8_c_size_t, st)
  call check(st == 22, 'c_null_ptr with a length: EINVAL')
  call kmp_nexttouch(c_loc(a), -1_c_size_t, st) ! SIZE_MAX
  call check(st == 75, 'a length past the address space: EOVERFLOW')
  call stack_scalar()
  c = counters()
  call check(c%requests == 0 .and. c%bad_requests == 3, 'bad requests')
  call kmp_reset_nexttouch_counters()

  ! Disarm, array form: armed pages stay, counted as disarmed.
  call kmp_nexttouch(a(:, 1:8), st)
  call fork()
  call kmp_nexttouch_disarm(a(:, 1:8), st)
  c = counters()
  call check(st == 0 .and. c%pages_armed > 0 .and. &
             c%pages_disarmed == c%pages_armed, 'disarm, array form')
  if (st == 0 .and. c%pages_disarmed == c%pages_armed) &
    print '(a)', 'fortran_api: disarm: stat 0, pages as expected'
  call check(sum(a) == 512 * n, 'data intact after next-touch')
  call kmp_reset_nexttouch_counters()

  ! The counters type: the runtime writes every byte after size (a longer
  ! Fortran type would keep the fill); the readonly counters at the end are
  ! checked below.
  allocate(raw(c_sizeof(c) / 8))
  raw = -7
  c = transfer(raw, c)
  c%size = c_sizeof(c)
  call check(kmp_get_nexttouch_counters(c) == 0, 'counters: get')
  raw = transfer(c, raw)
  call check(all(raw(2:) /= -7), 'counters: every field written')

  ! readonly: two items, each thread reads its node's replica.
  allocate(m(300, 300), v(300))
  do j = 1, 300
    v(j) = j
    do i = 1, 300
      m(i, j) = mod(i * 7 + j * 3, 11)
    end do
  end do
  sum_ref = sum(matmul(m, v))
  name_m = 'm' // c_null_char
  name_v = 'v' // c_null_char
  names = [c_loc(name_m), c_loc(name_v)]
  ptrs = [c_loc(m), c_loc(v)]
  lens = [storage_size(m, c_size_t) / 8 * size(m, kind=c_size_t), &
          storage_size(v, c_size_t) / 8 * size(v, kind=c_size_t)]
  st = kmp_readonly_begin(2, ptrs, lens, c_loc(names), h)
  call check(st == 0, 'readonly: begin')
  sum_ro = 0
  replica = .true.
!$omp parallel private(pm, pv, ro_ptrs) reduction(+:sum_ro) &
!$omp reduction(.and.:replica)
  call c_f_pointer(kmp_readonly_ptr(h, 0), pm, shape(m))
  call c_f_pointer(kmp_readonly_ptrs(h), ro_ptrs, [2])
  call c_f_pointer(ro_ptrs(2), pv, shape(v))
  replica = replica .and. .not. c_associated(c_loc(pm), c_loc(m)) .and. &
            .not. c_associated(c_loc(pv), c_loc(v)) .and. &
            c_associated(ro_ptrs(1), kmp_readonly_ptr(h, 0)) .and. &
            c_associated(ro_ptrs(2), kmp_readonly_ptr(h, 1))
!$omp do
  do i = 1, 300
    sum_ro = sum_ro + dot_product(pm(i, :), pv)
  end do
!$omp end do
!$omp end parallel
  call check(kmp_readonly_end(h) == 0, 'readonly: end')
  call check(replica, 'readonly: each thread reads a replica')
  call check(sum_ro == sum_ref, 'readonly: sum')
  c = counters()
  call check(c%readonly_regions == 1 .and. c%readonly_items == 2, &
             'readonly: counters regions, items')
  call check(c%readonly_replicas >= 2 .and. c%readonly_replica_ns > 0, &
             'readonly: counters replicas, time (the last field)')
  call kmp_readonly_release(v, st)
  call check(st == 0, 'readonly: release, array form')
  call kmp_readonly_release(c_null_ptr, 0_c_size_t, st)
  call check(st == 0, 'readonly: release all, c_ptr form')
  c = counters()
  call check(c%readonly_dropped == 2, 'readonly: both items dropped')
  m(1, 1) = 0 ! writable again
  if (replica .and. sum_ro == sum_ref) &
    print '(a)', 'fortran_api: readonly: replicas read, sum as expected'

  if (failures == 0) then
    print '(a)', 'fortran_api: PASS'
  else
    print '(a, i0, a)', 'fortran_api: ', failures, ' failures'
    stop 1
  end if
end program fortran_api
